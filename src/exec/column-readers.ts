// Column values in the two forms the non-generated operators (hash, aggregates, sort) work with:
// numbers in a Float64Array (ints, int64 pairs, dates, decimals, booleans as 0/1) or JS strings.

import { bufferOf, readUtf8, type Column } from '../data/page.js';

export function isStringColumn(col: Column): boolean {
  return col.kind !== 'fixed';
}

/** The column's values as JS values: strings for varchar columns, numbers otherwise (NULL rows hold whatever their slot holds). */
export function anyValues(col: Column): ArrayLike<number | string> {
  return isStringColumn(col) ? stringValues(col) : numericValues(col);
}

/**
 * The column's values as numbers. `scratch`, when given and large enough, receives converted values
 * instead of a new array (the result is then only valid until the scratch is reused).
 */
export function numericValues(col: Column, scratch?: Float64Array): Float64Array {
  if (col.kind !== 'fixed') throw new Error('numericValues on a varchar column');
  const n = col.length;
  const v = col.values;
  const id = col.type.id;
  if (id === 'double' || id === 'decimal' || id === 'interval day to second' || id === 'unknown') return v as Float64Array;
  const out = scratch !== undefined && scratch.length >= n ? scratch : new Float64Array(n);
  if (id === 'bigint' || id === 'timestamp') {
    for (let i = 0; i < n; i++) out[i] = v[2 * i + 1] * 4294967296 + (v[2 * i] >>> 0);
  } else if (id === 'boolean') {
    for (let i = 0; i < n; i++) out[i] = (v[i >> 3] >> (i & 7)) & 1;
  } else {
    for (let i = 0; i < n; i++) out[i] = v[i];
  }
  return out;
}

/** Rows `rows[0..n)` of a fixed-width column as numbers, written into `out` (gather and convert in one pass). */
export function numericValuesAt(col: Column, rows: Int32Array, n: number, out: Float64Array): Float64Array {
  if (col.kind !== 'fixed') throw new Error('numericValuesAt on a varchar column');
  const v = col.values;
  const id = col.type.id;
  if (id === 'bigint' || id === 'timestamp') {
    for (let i = 0; i < n; i++) {
      const r = rows[i];
      out[i] = v[2 * r + 1] * 4294967296 + (v[2 * r] >>> 0);
    }
  } else if (id === 'boolean') {
    for (let i = 0; i < n; i++) out[i] = (v[rows[i] >> 3] >> (rows[i] & 7)) & 1;
  } else {
    for (let i = 0; i < n; i++) out[i] = v[rows[i]];
  }
  return out;
}

const dictCache = new WeakMap<object, string[]>();

/** Columns up to this many bytes of text are decoded in one piece (see stringValues). */
const WHOLE_DECODE_MAX_BYTES = 16 << 20;

export function stringValues(col: Column): string[] {
  const n = col.length;
  const out = new Array<string>(n);
  if (col.kind === 'dict') {
    let strings = dictCache.get(col.dictionary);
    if (!strings) {
      strings = [];
      for (let k = 0; k < col.dictionary.length; k++) strings.push(readUtf8(col.dictionary, k));
      dictCache.set(col.dictionary, strings);
    }
    for (let i = 0; i < n; i++) out[i] = strings[col.indices[i]];
  } else if (col.kind === 'varchar') {
    const first = col.offsets[0];
    const bytes = col.offsets[n] - first;
    if (bytes > 0 && bytes <= WHOLE_DECODE_MAX_BYTES) {
      // One native decode of the whole column instead of one per row. When it yields exactly one
      // code unit per byte (no multi-byte sequences), byte offsets are string offsets.
      const whole = bufferOf(col.data).toString('utf8', first, first + bytes);
      if (whole.length === bytes) {
        for (let i = 0; i < n; i++) out[i] = whole.substring(col.offsets[i] - first, col.offsets[i + 1] - first);
        return out;
      }
    }
    for (let i = 0; i < n; i++) out[i] = readUtf8(col, i);
  } else throw new Error('stringValues on a fixed-width column');
  return out;
}

/** 1 where the row is NULL; null when the column has no NULLs. */
export function nullFlags(col: Column): Uint8Array | null {
  const v = col.validity;
  if (v === null) return null;
  const out = new Uint8Array(col.length);
  for (let i = 0; i < col.length; i++) out[i] = ((v[i >> 3] >> (i & 7)) & 1) ^ 1;
  return out;
}
