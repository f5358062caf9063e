/**
 * A strict little XML reader for the JUnit report: elements, attributes and text, with
 * nesting, quoting and entities checked. Throws on anything that is not well-formed, so
 * "it parses" is the well-formedness assertion. No DTDs, comments or CDATA: the kit
 * writes none.
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const BAD_ENTITY = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;
const ATTRIBUTE = /\s+([A-Za-z_][\w.:-]*)="([^"<]*)"/y;
const NAME = /^[A-Za-z_][\w.:-]*/;

export function parseXml(xml: string): XmlElement {
  let at = 0;
  const prolog = /^<\?xml [^?]*\?>\s*/.exec(xml);
  if (prolog) at = prolog[0].length;
  const root: XmlElement = { name: '#document', attributes: {}, children: [], text: '' };
  const stack: XmlElement[] = [root];
  while (at < xml.length) {
    const open = xml.indexOf('<', at);
    const text = xml.slice(at, open < 0 ? xml.length : open);
    checkText(text, at);
    stack[stack.length - 1]!.text += decode(text);
    if (open < 0) break;
    const close = xml.indexOf('>', open);
    if (close < 0) throw new Error(`unterminated tag at ${open}`);
    const tag = xml.slice(open + 1, close);
    at = close + 1;
    if (tag.startsWith('/')) {
      const element = stack.pop();
      if (!element || element.name !== tag.slice(1) || stack.length === 0)
        throw new Error(`</${tag.slice(1)}> at ${open} closes ${element?.name ?? 'nothing'}`);
      continue;
    }
    const selfClosing = tag.endsWith('/');
    const element = parseTag(selfClosing ? tag.slice(0, -1) : tag, open);
    stack[stack.length - 1]!.children.push(element);
    if (!selfClosing) stack.push(element);
  }
  if (stack.length !== 1) throw new Error(`unclosed <${stack[stack.length - 1]!.name}>`);
  if (root.children.length !== 1 || root.text.trim() !== '') throw new Error('a document has exactly one root element and no text around it');
  return root.children[0]!;
}

function parseTag(tag: string, offset: number): XmlElement {
  const name = NAME.exec(tag)?.[0];
  if (!name) throw new Error(`bad tag name at ${offset}: <${tag}>`);
  const attributes: Record<string, string> = {};
  let at = name.length;
  while (at < tag.trimEnd().length) {
    ATTRIBUTE.lastIndex = at;
    const match = ATTRIBUTE.exec(tag);
    if (!match) throw new Error(`bad attribute syntax at ${offset + at}: <${tag}>`);
    if (match[1]! in attributes) throw new Error(`duplicate attribute ${match[1]} at ${offset}`);
    checkText(match[2]!, offset + at);
    attributes[match[1]!] = decode(match[2]!);
    at = ATTRIBUTE.lastIndex;
  }
  return { name, attributes, children: [], text: '' };
}

function checkText(text: string, offset: number): void {
  if (text.includes(']]>')) throw new Error(`"]]>" in text at ${offset}`);
  if (BAD_ENTITY.test(text)) throw new Error(`a bare & in text at ${offset}`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/.test(text)) throw new Error(`a control character at ${offset}`);
}

function decode(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&#x([0-9a-fA-F]+);/g, (_, code: string) => String.fromCodePoint(parseInt(code, 16)))
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&apos;', "'")
    .replaceAll('&amp;', '&');
}

/** Every element named `name` below `element`, depth first. */
export function elementsNamed(element: XmlElement, name: string): XmlElement[] {
  return element.children.flatMap((child) => [...(child.name === name ? [child] : []), ...elementsNamed(child, name)]);
}
