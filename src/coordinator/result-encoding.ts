// Rows as the statement protocol sends them: JSON values encoded per column type as Trino does
// (decimals, dates, timestamps and intervals as strings; NaN and infinities as strings).

import { isNull, readBit, readInt64, readUtf8, type Column, type Page, type VarcharColumn } from '../data/page.js';
import type { SqlType } from '../data/types.js';
import { formatDate, formatDecimal, formatIntervalDayTime, formatIntervalYearMonth, formatTimestamp } from '../data/values.js';

export type JsonValue = number | string | boolean | null;

function doubleValue(x: number): number | string {
  if (Number.isFinite(x)) return x;
  return Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity';
}

function columnReader(col: Column, type: SqlType): (row: number) => JsonValue {
  if (col.kind === 'varchar') return (r) => readUtf8(col, r);
  if (col.kind === 'dict') {
    const dict: string[] = [];
    for (let i = 0; i < col.dictionary.length; i++) dict.push(readUtf8(col.dictionary, i));
    return (r) => dict[col.indices[r]];
  }
  const v = col.values;
  switch (type.id) {
    case 'boolean':
      return (r) => readBit(v as Uint8Array, r);
    case 'bigint':
      return (r) => readInt64(v as Int32Array, r);
    case 'timestamp':
      return (r) => formatTimestamp(readInt64(v as Int32Array, r));
    case 'double':
    case 'real':
      return (r) => doubleValue(v[r]);
    case 'decimal': {
      const scale = type.scale ?? 0;
      return (r) => formatDecimal(v[r], scale);
    }
    case 'date':
      return (r) => formatDate(v[r]);
    case 'interval day to second':
      return (r) => formatIntervalDayTime(v[r]);
    case 'interval year to month':
      return (r) => formatIntervalYearMonth(v[r]);
    case 'unknown':
      return () => null;
    default:
      return (r) => v[r];
  }
}

/**
 * Appends a page's rows [start, end) (all by default) to `out` as arrays of JSON values: the value
 * form of what the statement protocol sends as text (encodeRowsJson, which must equal its
 * JSON.stringify; the tests hold the two together).
 */
export function encodeRows(page: Page, types: readonly SqlType[], out: JsonValue[][], start = 0, end = page.length): void {
  const readers = page.columns.map((c, i) => {
    const read = columnReader(c, types[i]);
    return c.validity === null ? read : (r: number) => (isNull(c, r) ? null : read(r));
  });
  const width = readers.length;
  for (let r = start; r < end; r++) {
    const row = new Array<JsonValue>(width);
    for (let c = 0; c < width; c++) row[c] = readers[c](r);
    out.push(row);
  }
}

/** Dictionaries whose every entry is ASCII, once checked (rowsAscii). */
const asciiDictionaries = new WeakMap<VarcharColumn, boolean>();

function bytesAscii(data: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (data[i] > 0x7f) return false;
  return true;
}

/**
 * Whether rows [start, end) of a page encode (encodeRowsJson) to ASCII text: every value but a
 * string is written in ASCII, and a string is when its UTF-8 bytes are (JSON escapes control
 * characters as \u sequences).
 */
export function rowsAscii(page: Page, start = 0, end = page.length): boolean {
  for (const col of page.columns) {
    if (col.kind === 'varchar') {
      if (!bytesAscii(col.data, col.offsets[start], col.offsets[end])) return false;
    } else if (col.kind === 'dict') {
      const dict = col.dictionary;
      let ascii = asciiDictionaries.get(dict);
      if (ascii === undefined) asciiDictionaries.set(dict, (ascii = bytesAscii(dict.data, dict.offsets[0], dict.offsets[dict.length])));
      if (!ascii) return false;
    }
  }
  return true;
}

/** A double as JSON text: as JSON.stringify writes a finite number, NaN and infinities as strings. */
function doubleText(x: number): string {
  if (Number.isFinite(x)) return `${x}`;
  return Number.isNaN(x) ? '"NaN"' : x > 0 ? '"Infinity"' : '"-Infinity"';
}

function columnText(col: Column, type: SqlType): (row: number) => string {
  if (col.kind === 'varchar') return (r) => JSON.stringify(readUtf8(col, r));
  if (col.kind === 'dict') {
    const dict: string[] = [];
    for (let i = 0; i < col.dictionary.length; i++) dict.push(JSON.stringify(readUtf8(col.dictionary, i)));
    return (r) => dict[col.indices[r]];
  }
  const v = col.values;
  switch (type.id) {
    case 'double':
    case 'real':
      return (r) => doubleText(v[r]);
    case 'bigint':
      return (r) => `${readInt64(v as Int32Array, r)}`;
    case 'tinyint':
    case 'smallint':
    case 'integer':
      return (r) => `${v[r]}`;
    default: {
      const read = columnReader(col, type);
      return (r) => JSON.stringify(read(r));
    }
  }
}

/**
 * Rows [start, end) of a page as JSON text: the rows' arrays joined by commas, exactly what
 * JSON.stringify writes for encodeRows' arrays, without building them (a result of 18k rows
 * made 18k arrays and 70k values of garbage, then stringified them).
 */
export function encodeRowsJson(page: Page, types: readonly SqlType[], start = 0, end = page.length): string {
  const texts = page.columns.map((c, i) => {
    const text = columnText(c, types[i]);
    return c.validity === null ? text : (r: number) => (isNull(c, r) ? 'null' : text(r));
  });
  const width = texts.length;
  let out = '';
  for (let r = start; r < end; r++) {
    let row = r === start ? '[' : ',[';
    for (let c = 0; c < width; c++) row += c === 0 ? texts[c](r) : `,${texts[c](r)}`;
    out += `${row}]`;
  }
  return out;
}

/**
 * JSON text as UTF-8 bytes in a growing Buffer: the form a large batch of rows is encoded in
 * (encodeRowsJsonBytes). A string of a few hundred thousand rows built by `+=` is a rope that its
 * length, its encoding and its write each walk again (3.4 ms each for 760 KB).
 */
export class JsonBytes {
  private buf: Buffer;
  length = 0;

  constructor(capacity = 1 << 16) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  private ensure(more: number): Buffer {
    if (this.length + more > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.length + more, this.buf.length * 2));
      this.buf.copy(grown, 0, 0, this.length);
      this.buf = grown;
    }
    return this.buf;
  }

  byte(b: number): void {
    this.ensure(1)[this.length++] = b;
  }

  /** A string's UTF-8 bytes (a loop for ASCII, the encoder for the rest). */
  text(s: string): void {
    const buf = this.ensure(s.length);
    let at = this.length;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        this.ensure(3 * s.length);
        this.length += this.buf.write(s, this.length, 'utf8');
        return;
      }
      buf[at++] = c;
    }
    this.length = at;
  }

  bytes(src: Uint8Array, from: number, to: number): void {
    const buf = this.ensure(to - from);
    let at = this.length;
    for (let i = from; i < to; i++) buf[at++] = src[i];
    this.length = at;
  }

  /** The bytes written so far (a view: the sink is not written to afterwards). */
  toBuffer(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Each dictionary's entries as JSON string bytes, built once per dictionary. */
const dictionaryJson = new WeakMap<VarcharColumn, Uint8Array[]>();

function dictionaryEntriesJson(dictionary: VarcharColumn): Uint8Array[] {
  let entries = dictionaryJson.get(dictionary);
  if (entries === undefined) {
    entries = [];
    for (let i = 0; i < dictionary.length; i++) entries.push(Buffer.from(JSON.stringify(readUtf8(dictionary, i)), 'utf8'));
    dictionaryJson.set(dictionary, entries);
  }
  return entries;
}

/** Writes row r of a column as JSON into `out` (NULLs are handled by the caller). */
function columnWriter(col: Column, type: SqlType, out: JsonBytes): (row: number) => void {
  if (col.kind === 'varchar') {
    const { offsets, data } = col;
    return (r) => {
      const start = offsets[r];
      const end = offsets[r + 1];
      // Plain ASCII without quotes, backslashes or control characters is its own JSON body.
      for (let i = start; i < end; i++) {
        const b = data[i];
        if (b < 0x20 || b >= 0x80 || b === QUOTE || b === BACKSLASH) {
          out.text(JSON.stringify(readUtf8(col, r)));
          return;
        }
      }
      out.byte(QUOTE);
      out.bytes(data, start, end);
      out.byte(QUOTE);
    };
  }
  if (col.kind === 'dict') {
    const entries = dictionaryEntriesJson(col.dictionary);
    const indices = col.indices;
    return (r) => {
      const e = entries[indices[r]];
      out.bytes(e, 0, e.length);
    };
  }
  const text = columnText(col, type);
  return (r) => out.text(text(r));
}

/** encodeRowsJson's text for rows [start, end), as UTF-8 bytes appended to `out`. */
export function encodeRowsJsonBytes(page: Page, types: readonly SqlType[], out: JsonBytes, start = 0, end = page.length): void {
  const writers = page.columns.map((c, i) => {
    const write = columnWriter(c, types[i], out);
    return c.validity === null ? write : (r: number) => (isNull(c, r) ? out.text('null') : write(r));
  });
  const width = writers.length;
  for (let r = start; r < end; r++) {
    if (r !== start) out.byte(0x2c);
    out.byte(0x5b);
    for (let c = 0; c < width; c++) {
      if (c !== 0) out.byte(0x2c);
      writers[c](r);
    }
    out.byte(0x5d);
  }
}

/** Approximate JSON size of a page, for targetResultSize batching without encoding twice. */
export function estimateJsonBytes(page: Page): number {
  let bytes = 0;
  for (const c of page.columns) {
    if (c.kind === 'varchar') bytes += c.data.byteLength + 3 * c.length;
    else if (c.kind === 'dict') bytes += 12 * c.length;
    else bytes += 10 * c.length;
  }
  return bytes;
}
