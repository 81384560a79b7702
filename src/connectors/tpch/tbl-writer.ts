// dbgen's .tbl text: one line per row, every field followed by '|', money with two decimals, dates
// as YYYY-MM-DD. Pages are formatted straight into a byte buffer by a row loop compiled per table.

import { open, type FileHandle } from 'node:fs/promises';
import type { Column, Page } from '../../data/page.js';
import { DATE_TEXT, MIN_DATE_EPOCH_DAY } from './dates.js';
import { generateTpchSplit } from './generate.js';
import { tpchTable, type TpchTableName } from './schema.js';
import { tpchSplits } from './splits.js';

const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;

/** Number of decimal digits of a non-negative integer below 2^53. */
function digitCount(v: number): number {
  if (v < 100000) return v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : 5;
  if (v < 1e10) return v < 1e6 ? 6 : v < 1e7 ? 7 : v < 1e8 ? 8 : v < 1e9 ? 9 : 10;
  let n = 10;
  for (let x = v / 1e10; x >= 1; x /= 10) n++;
  return n;
}

/** Writes a non-negative integer (below 2^53) at `pos`; returns the position after it. */
function writeUint(buf: Uint8Array, pos: number, value: number): number {
  const end = pos + digitCount(value);
  let i = end;
  let v = value;
  while (v >= 2147483648) {
    const q = Math.floor(v / 10);
    buf[--i] = ZERO + (v - q * 10);
    v = q;
  }
  let small = v | 0;
  while (small >= 10) {
    const q = (small / 10) | 0;
    buf[--i] = ZERO + (small - q * 10);
    small = q;
  }
  buf[--i] = ZERO + small;
  return end;
}

function writeInt(buf: Uint8Array, pos: number, value: number): number {
  if (value < 0) {
    buf[pos] = MINUS;
    return writeUint(buf, pos + 1, -value);
  }
  return writeUint(buf, pos, value);
}

/** Money held as cents / 100: '-12.34', '0.05'. */
function writeMoney(buf: Uint8Array, pos: number, value: number): number {
  let cents = Math.round(value * 100);
  let p = pos;
  if (cents < 0) {
    buf[p++] = MINUS;
    cents = -cents;
  }
  const whole = Math.floor(cents / 100);
  const frac = (cents - whole * 100) | 0;
  p = writeUint(buf, p, whole);
  const tens = (frac / 10) | 0;
  buf[p] = DOT;
  buf[p + 1] = ZERO + tens;
  buf[p + 2] = ZERO + (frac - tens * 10);
  return p + 3;
}

/** Upper bound of one formatted row of the table, in bytes. */
function maxRowBytes(table: TpchTableName): number {
  let n = 1;
  for (const c of tpchTable(table).columns) n += (c.type.precision ?? 24) + 1;
  return n;
}

function writeDate(buf: Uint8Array, pos: number, epochDay: number): number {
  const at = (epochDay - MIN_DATE_EPOCH_DAY) * 10;
  for (let k = 0; k < 10; k++) buf[pos + k] = DATE_TEXT[at + k];
  return pos + 10;
}

function copyValue(buf: Uint8Array, pos: number, offsets: Int32Array, data: Uint8Array, i: number): number {
  let p = pos;
  const end = offsets[i + 1];
  for (let k = offsets[i]; k < end; k++) buf[p++] = data[k];
  return p;
}

type RowFormatter = (
  columns: readonly Column[],
  buf: Uint8Array,
  pos: number,
  row: number,
  end: number,
  limit: number,
) => { pos: number; nextRow: number };

/**
 * One row loop per table, compiled once: each column's buffers become locals and each field a
 * direct call for its type, so the loop has no per-field dispatch.
 */
function compileFormatter(table: TpchTableName): RowFormatter {
  const setup: string[] = [];
  const fields: string[] = [];
  tpchTable(table).columns.forEach((c, i) => {
    const id = c.type.id;
    if (id === 'varchar') {
      // a dictionary column or a plain Utf8 column, decided per page
      setup.push(
        `const c${i} = columns[${i}];`,
        `const x${i} = c${i}.kind === 'dict' ? c${i}.indices : null;`,
        `const o${i} = c${i}.kind === 'dict' ? c${i}.dictionary.offsets : c${i}.offsets;`,
        `const d${i} = c${i}.kind === 'dict' ? c${i}.dictionary.data : c${i}.data;`,
      );
      fields.push(`p = copyValue(buf, p, o${i}, d${i}, x${i} === null ? r : x${i}[r]);`);
    } else {
      setup.push(`const v${i} = columns[${i}].values;`);
      if (id === 'bigint') fields.push(`p = writeInt(buf, p, v${i}[2 * r + 1] * 4294967296 + (v${i}[2 * r] >>> 0));`);
      else if (id === 'date') fields.push(`p = writeDate(buf, p, v${i}[r]);`);
      else if (c.tbl === 'money') fields.push(`p = writeMoney(buf, p, v${i}[r]);`);
      else fields.push(`p = writeInt(buf, p, v${i}[r]);`);
    }
  });
  const source = `"use strict";
return function format_${table}(columns, buf, pos, row, end, limit) {
  ${setup.join('\n  ')}
  let p = pos;
  let r = row;
  for (; r < end && p <= limit; r++) {
    ${fields.join(' buf[p++] = 124;\n    ')} buf[p++] = 124;
    buf[p++] = 10;
  }
  return { pos: p, nextRow: r };
};`;
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const factory = new Function('writeInt', 'writeMoney', 'writeDate', 'copyValue', source) as (
    ...helpers: unknown[]
  ) => RowFormatter;
  return factory(writeInt, writeMoney, writeDate, copyValue);
}

const formatters = new Map<TpchTableName, RowFormatter>();

/**
 * Formats the page's rows (all of the table's columns, in table order) into `buf` from `pos`,
 * starting at `firstRow`. Stops early when the buffer might not hold another row; returns the
 * position after the last row written and the next row to format.
 */
export function formatTblRows(
  table: TpchTableName,
  page: Page,
  firstRow: number,
  buf: Uint8Array,
  pos: number,
): { pos: number; nextRow: number } {
  const width = tpchTable(table).columns.length;
  if (page.columns.length !== width) throw new Error(`a ${table} page must hold all ${width} columns`);
  let format = formatters.get(table);
  if (!format) {
    format = compileFormatter(table);
    formatters.set(table, format);
  }
  return format(page.columns, buf, pos, firstRow, page.length, buf.length - maxRowBytes(table));
}

const CHUNK_BYTES = 4 << 20;
const ROWS_PER_PAGE = 1 << 16;

/** The table's .tbl text as byte chunks with the number of rows in each (fresh buffers). */
function* chunksWithRows(table: TpchTableName, scaleFactor: number): Generator<[Uint8Array, number]> {
  let buf = Buffer.allocUnsafe(CHUNK_BYTES);
  let pos = 0;
  let rows = 0;
  for (const split of tpchSplits(table, scaleFactor, ROWS_PER_PAGE)) {
    const page = generateTpchSplit(split);
    let row = 0;
    while (row < page.length) {
      const r = formatTblRows(table, page, row, buf, pos);
      rows += r.nextRow - row;
      pos = r.pos;
      row = r.nextRow;
      if (row < page.length) {
        yield [buf.subarray(0, pos), rows];
        buf = Buffer.allocUnsafe(CHUNK_BYTES);
        pos = 0;
        rows = 0;
      }
    }
  }
  if (pos > 0) yield [buf.subarray(0, pos), rows];
}

/** The table's .tbl text as a sequence of byte chunks (each a fresh buffer the caller may keep). */
export function* tblChunks(table: TpchTableName, scaleFactor: number): Generator<Uint8Array> {
  for (const [chunk] of chunksWithRows(table, scaleFactor)) yield chunk;
}

async function writeAll(file: FileHandle, chunk: Uint8Array): Promise<void> {
  let off = 0;
  while (off < chunk.length) off += (await file.write(chunk, off, chunk.length - off)).bytesWritten;
}

export interface TblWriteResult {
  readonly table: TpchTableName;
  readonly rows: number;
  readonly bytes: number;
  readonly millis: number;
}

/**
 * Writes the table's .tbl text to a file path (created or truncated) or to a writable stream
 * (respecting back-pressure; the stream is left open).
 */
export async function writeTbl(
  table: TpchTableName,
  scaleFactor: number,
  out: NodeJS.WritableStream | string,
): Promise<TblWriteResult> {
  const started = performance.now();
  let bytes = 0;
  let rows = 0;
  if (typeof out === 'string') {
    // The disk write of one chunk (on libuv's thread pool) overlaps generating the next.
    const file = await open(out, 'w');
    try {
      let pending: Promise<unknown> = Promise.resolve();
      for (const [chunk, n] of chunksWithRows(table, scaleFactor)) {
        rows += n;
        bytes += chunk.length;
        await pending;
        pending = writeAll(file, chunk);
      }
      await pending;
    } finally {
      await file.close();
    }
  } else {
    for (const [chunk, n] of chunksWithRows(table, scaleFactor)) {
      rows += n;
      bytes += chunk.length;
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
  }
  return { table, rows, bytes, millis: performance.now() - started };
}
