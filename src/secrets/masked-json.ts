/**
 * The secret policy applied to JSON as bytes, for whatever serves stored bytes without
 * re-serialising them: bytes that cannot hold a secret (most events) are passed on as they
 * are; the others are parsed, masked and written again, at any depth.
 */
import { COMPACT, type JsonLayout, jsonText } from '../json/json-text';
import { type CopyOptions, KnownSecrets, mayHoldSecrets, maskedCopy } from './secret-policy';

/**
 * `json` with the policy applied: the same buffer when nothing is masked, else the masked
 * value written in `layout`. Bytes that are not JSON have the known values masked in them
 * (KnownSecrets.maskInBytes), and are otherwise left as they are.
 */
export function maskedJson(json: Buffer, known: KnownSecrets = KnownSecrets.NONE, layout: JsonLayout = COMPACT, options: CopyOptions = {}): Buffer {
  if (!mayHoldSecrets(json, known, options)) return json;
  let value: unknown;
  try {
    value = JSON.parse(json.toString('utf8'));
  } catch {
    return known.maskInBytes(json);
  }
  const copy = maskedCopy(value, known, options);
  return copy.changed ? Buffer.from(jsonText(copy.value, layout), 'utf8') : json;
}

/**
 * A piece of a page's items (one stored event, or several already joined with commas) with
 * the policy applied to each event in it; the same buffer when nothing is masked.
 */
export function maskedJsonItems(piece: Buffer, known: KnownSecrets = KnownSecrets.NONE): Buffer {
  if (!mayHoldSecrets(piece, known)) return piece;
  const list = Buffer.concat([OPEN_LIST, piece, CLOSE_LIST]);
  const masked = maskedJson(list, known);
  return masked === list ? piece : masked.subarray(1, -1);
}

const OPEN_LIST = Buffer.from('[');
const CLOSE_LIST = Buffer.from(']');
