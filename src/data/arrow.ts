// Pages as apache-arrow record batches. The buffers are the page's own (no copy) except decimals,
// which widen from scaled float64 to Arrow's 128-bit layout. Each field carries its SQL type in
// metadata (`engine.type`) so a reader can tell varchar(25) from varchar.

import {
  Bool,
  DataType,
  DateDay,
  Decimal,
  Dictionary,
  Field,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  tableToIPC,
  TimestampMillisecond,
  Utf8,
  type Data,
} from 'apache-arrow';
import type { Column, Page } from './page.js';
import { typeDisplayName, type SqlType } from './types.js';

function arrowType(t: SqlType): DataType {
  switch (t.id) {
    case 'boolean':
      return new Bool();
    case 'tinyint':
      return new Int8();
    case 'smallint':
      return new Int16();
    case 'integer':
    case 'interval year to month':
      return new Int32();
    case 'bigint':
      return new Int64();
    case 'real':
      return new Float32();
    case 'double':
    case 'interval day to second':
    case 'unknown':
      return new Float64();
    case 'decimal':
      return new Decimal(t.scale ?? 0, t.precision ?? 38, 128);
    case 'varchar':
      return new Utf8();
    case 'date':
      return new DateDay();
    case 'timestamp':
      return new TimestampMillisecond();
  }
}

function nullCount(col: Column): number {
  if (!col.validity) return 0;
  let n = 0;
  for (let i = 0; i < col.length; i++) if (((col.validity[i >> 3] >> (i & 7)) & 1) === 0) n++;
  return n;
}

function columnData(col: Column): Data {
  const nulls = nullCount(col);
  const nullBitmap = col.validity ?? undefined;
  if (col.kind === 'varchar') {
    return makeData({ type: new Utf8(), length: col.length, nullCount: nulls, nullBitmap, valueOffsets: col.offsets, data: col.data });
  }
  if (col.kind === 'dict') {
    const dictionary = columnData(col.dictionary);
    const type = new Dictionary(new Utf8(), new Int32());
    return makeData({ type, length: col.length, nullCount: nulls, nullBitmap, data: col.indices, dictionary: makeVector(dictionary) } as never);
  }
  const t = arrowType(col.type);
  const v = col.values;
  if (col.type.id === 'bigint' || col.type.id === 'timestamp') {
    const data = new BigInt64Array(v.buffer as ArrayBuffer, v.byteOffset, col.length);
    return makeData({ type: t as Int64, length: col.length, nullCount: nulls, nullBitmap, data } as never);
  }
  if (col.type.id === 'decimal') {
    const words = new Uint32Array(col.length * 4);
    for (let i = 0; i < col.length; i++) {
      const x = v[i];
      const lo = x >>> 0;
      const hi = Math.floor(x / 4294967296);
      const ext = x < 0 ? 0xffffffff : 0;
      words[4 * i] = lo;
      words[4 * i + 1] = hi >>> 0;
      words[4 * i + 2] = ext;
      words[4 * i + 3] = ext;
    }
    return makeData({ type: t as Decimal, length: col.length, nullCount: nulls, nullBitmap, data: words });
  }
  return makeData({ type: t, length: col.length, nullCount: nulls, nullBitmap, data: v } as never);
}

// makeVector is re-exported by apache-arrow; imported lazily to keep the import list readable.
import { makeVector } from 'apache-arrow';

export function arrowSchema(names: readonly string[], types: readonly SqlType[]): Schema {
  return new Schema(
    types.map((t, i) => {
      const type = t.id === 'varchar' ? new Utf8() : arrowType(t);
      return new Field(names[i] ?? `_col${i}`, type, true, new Map([['engine.type', typeDisplayName(t)]]));
    }),
  );
}

/** A dictionary column spelled out as plain UTF-8 (IPC batches of one stream must share a schema). */
function plainUtf8(col: Column): Column {
  if (col.kind !== 'dict') return col;
  const d = col.dictionary;
  const offsets = new Int32Array(col.length + 1);
  let bytes = 0;
  for (let i = 0; i < col.length; i++) {
    const k = col.indices[i];
    bytes += d.offsets[k + 1] - d.offsets[k];
    offsets[i + 1] = bytes;
  }
  const data = new Uint8Array(bytes);
  for (let i = 0; i < col.length; i++) {
    const k = col.indices[i];
    data.set(d.data.subarray(d.offsets[k], d.offsets[k + 1]), offsets[i]);
  }
  return { kind: 'varchar', type: col.type, length: col.length, validity: col.validity, offsets, data };
}

/** A page as a RecordBatch over the same memory (dictionary columns as plain UTF-8 when `plain`). */
export function toRecordBatch(page: Page, names: readonly string[], types: readonly SqlType[], plain = false): RecordBatch {
  const children = page.columns.map((c) => columnData(plain ? plainUtf8(c) : c));
  const schema = new Schema(
    types.map((t, i) => new Field(names[i] ?? `_col${i}`, children[i].type, true, new Map([['engine.type', typeDisplayName(t)]]))),
  );
  const struct = makeData({ type: new Struct(schema.fields), length: page.length, nullCount: 0, children });
  return new RecordBatch(schema, struct);
}

/** Pages as one Arrow IPC stream. */
export function pagesToIpc(pages: readonly Page[], names: readonly string[], types: readonly SqlType[]): Uint8Array {
  if (pages.length === 0) return tableToIPC(new Table(arrowSchema(names, types)), 'stream');
  const batches = pages.map((p) => toRecordBatch(p, names, types, true));
  return tableToIPC(new Table(batches), 'stream');
}

/** Bytes per value of a fixed-width type in Arrow's layout (booleans are bits: 1/8). */
function arrowValueBytes(t: SqlType): number {
  switch (t.id) {
    case 'boolean':
      return 1 / 8;
    case 'tinyint':
      return 1;
    case 'smallint':
      return 2;
    case 'integer':
    case 'date':
    case 'interval year to month':
    case 'real':
      return 4;
    case 'decimal':
      return 16;
    default:
      return 8;
  }
}

/** Arrow IPC aligns every buffer of a record batch body to 8 bytes. */
const padded = (bytes: number): number => Math.ceil(bytes / 8) * 8;

/**
 * Bytes a column takes in Arrow's plain layout, as an IPC record batch body carries it: values (a
 * dictionary column spelled out as Utf8 offsets and bytes, decimals as 128-bit), a validity bitmap
 * when the column can hold NULLs, each buffer padded to 8 bytes. The yardstick for what we hold.
 */
export function arrowBytes(col: Column): number {
  const validity = col.validity ? padded(Math.ceil(col.length / 8)) : 0;
  const offsets = padded(4 * (col.length + 1));
  switch (col.kind) {
    case 'fixed':
      return validity + padded(Math.ceil(col.length * arrowValueBytes(col.type)));
    case 'varchar':
      return validity + offsets + padded(col.offsets[col.length] - col.offsets[0]);
    case 'dict': {
      const d = col.dictionary.offsets;
      let bytes = 0;
      for (let i = 0; i < col.length; i++) bytes += d[col.indices[i] + 1] - d[col.indices[i]];
      return validity + offsets + padded(bytes);
    }
  }
}
