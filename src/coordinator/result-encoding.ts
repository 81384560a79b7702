// Rows as the statement protocol sends them: JSON values encoded per column type as Trino does
// (decimals, dates, timestamps and intervals as strings; NaN and infinities as strings).

import { isNull, readBit, readInt64, readUtf8, type Column, type Page } from '../data/page.js';
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
