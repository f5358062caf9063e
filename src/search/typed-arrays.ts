type TypedColumn = Float64Array | Int32Array | Uint32Array | Uint16Array | Uint8Array;

/** A copy of `array` with room for `length` entries (new entries 0), or cut to it. */
export function resized<T extends TypedColumn>(array: T, length: number): T {
  const next = new (array.constructor as new (length: number) => T)(length);
  next.set(array.subarray(0, Math.min(length, array.length)) as never);
  return next;
}
