import { withoutTopLevelMembers } from '../../src/store/stored-event/json-members';

const cut = (text: string, ...names: string[]) => withoutTopLevelMembers(Buffer.from(text), new Set(names))?.toString();

describe('withoutTopLevelMembers', () => {
  it.each([
    ['the first member', '{"parent_id":"p","id":"a","kind":"PauseEvent"}', '{"id":"a","kind":"PauseEvent"}'],
    ['a middle member', '{"id":"a","parent_id":"p","kind":"PauseEvent"}', '{"id":"a","kind":"PauseEvent"}'],
    ['the last member', '{"id":"a","parent_id":"p"}', '{"id":"a"}'],
    ['the only member', '{"parent_id":"p"}', '{}'],
    [
      'object and array values, leaving the same name nested inside others',
      '{"x":{"parent_id":1,"y":[1,{"z":"}"}]},"parent_id":{"a":[{}]},"extended_content":[],"n":1.50}',
      '{"x":{"parent_id":1,"y":[1,{"z":"}"}]},"n":1.50}',
    ],
    [
      'members around strings with escaped quotes and backslashes',
      '{"a":"say \\"hi\\" \\\\","parent_id":"\\\\\\"","b":true}',
      '{"a":"say \\"hi\\" \\\\","b":true}',
    ],
    ['a key written with an escape', '{"parent\\u005fid":"p","b":null}', '{"b":null}'],
    ['spaced JSON, members then joined by single commas', ' { "a" : 1 , "parent_id" : "p" , "b" : [ 1 , 2 ] } ', '{"a" : 1,"b" : [ 1 , 2 ]}'],
  ])('removes %s', (_name, text, expected) => {
    expect(cut(text, 'parent_id', 'extended_content')).toBe(expected);
    expect(JSON.parse(expected)).toEqual(
      Object.fromEntries(Object.entries(JSON.parse(text) as object).filter(([key]) => key !== 'parent_id' && key !== 'extended_content')),
    );
  });

  it('keeps number forms and every other byte as stored, which serialising again would not', () => {
    expect(cut('{"score":1.0,"big":12345678901234567890,"parent_id":"p"}', 'parent_id')).toBe('{"score":1.0,"big":12345678901234567890}');
  });

  it.each(['[1,2]', '"text"', '{"a" 1}', '{"a":1'])('answers undefined for %p, which it cannot follow', (text) => {
    expect(cut(text, 'a')).toBeUndefined();
  });
});
