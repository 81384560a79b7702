// dbgen's .tbl text: one line per row, every field followed by '|', money with two decimals, dates
// as YYYY-MM-DD. Pages are formatted straight into a byte buffer, a field at a time.

import { open, type FileHandle } from 'node:fs/promises';
import type { Column, Page } from '../../data/page.js';
import { DATE_TEXT, MIN_DATE_EPOCH_DAY } from './dates.js';
import { generateTpchSplit } from './generate.js';
import { tpchTable, type TpchTableName } from './schema.js';
import { tpchSplits } from './splits.js';

const PIPE = 0x7c;
const NEWLINE = 0x0a;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const TWO_32 = 4294967296;

// Field kinds (plain numbers so the switch below stays a jump table).
const Kind = { Int64: 0, Int32: 1, WholeDouble: 2, Money: 3, Date: 4, Utf8: 5, Dict: 6 } as const;
type Kind = (typeof Kind)[keyof typeof Kind];

interface Field {
  kind: Kind;
  ints: Int32Array;
  doubles: Float64Array;
  offsets: Int32Array;
  data: Uint8Array;
}

const EMPTY_INTS = new Int32Array(0);
const EMPTY_DOUBLES = new Float64Array(0);
const EMPTY_BYTES = new Uint8Array(0);

function fieldOf(col: Column, tbl: string): Field {
  const f: Field = { kind: Kind.Int32, ints: EMPTY_INTS, doubles: EMPTY_DOUBLES, offsets: EMPTY_INTS, data: EMPTY_BYTES };
  if (col.kind === 'varchar') {
    f.kind = Kind.Utf8;
    f.offsets = col.offsets;
    f.data = col.data;
  } else if (col.kind === 'dict') {
    f.kind = Kind.Dict;
    f.ints = col.indices;
    f.offsets = col.dictionary.offsets;
    f.data = col.dictionary.data;
  } else if (col.type.id === 'bigint') {
    f.kind = Kind.Int64;
    f.ints = col.values as Int32Array;
  } else if (col.type.id === 'date') {
    f.kind = Kind.Date;
    f.ints = col.values as Int32Array;
  } else if (col.type.id === 'double') {
    f.kind = tbl === 'money' ? Kind.Money : Kind.WholeDouble;
    f.doubles = col.values as Float64Array;
  } else {
    f.kind = Kind.Int32;
    f.ints = col.values as Int32Array;
  }
  return f;
}

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

/**
 * Formats the page's rows (all of the table's columns, in table order) into `buf` from `pos`.
 * Returns the position after the last complete row written and the number of rows written, which
 * stops early when the buffer cannot hold another row.
 */
export function formatTblRows(
  table: TpchTableName,
  page: Page,
  firstRow: number,
  buf: Uint8Array,
  pos: number,
): { pos: number; nextRow: number } {
  const spec = tpchTable(table).columns;
  if (page.columns.length !== spec.length) throw new Error(`a ${table} page must hold all ${spec.length} columns`);
  const fields = page.columns.map((c, i) => fieldOf(c, spec[i].tbl));
  const width = fields.length;
  const rowBytes = maxRowBytes(table);
  let p = pos;
  let row = firstRow;
  for (; row < page.length && p + rowBytes <= buf.length; row++) {
    for (let c = 0; c < width; c++) {
      const f = fields[c];
      switch (f.kind) {
        case Kind.Int64:
          p = writeInt(buf, p, f.ints[2 * row + 1] * TWO_32 + (f.ints[2 * row] >>> 0));
          break;
        case Kind.Int32:
          p = writeInt(buf, p, f.ints[row]);
          break;
        case Kind.WholeDouble:
          p = writeInt(buf, p, f.doubles[row]);
          break;
        case Kind.Money:
          p = writeMoney(buf, p, f.doubles[row]);
          break;
        case Kind.Date: {
          const at = (f.ints[row] - MIN_DATE_EPOCH_DAY) * 10;
          for (let k = 0; k < 10; k++) buf[p + k] = DATE_TEXT[at + k];
          p += 10;
          break;
        }
        case Kind.Utf8:
        case Kind.Dict: {
          const v = f.kind === Kind.Dict ? f.ints[row] : row;
          const data = f.data;
          const end = f.offsets[v + 1];
          for (let k = f.offsets[v]; k < end; k++) buf[p++] = data[k];
          break;
        }
      }
      buf[p++] = PIPE;
    }
    buf[p++] = NEWLINE;
  }
  return { pos: p, nextRow: row };
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
