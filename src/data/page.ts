// The page: a batch of rows held column by column in Apache Arrow's memory layout, every buffer
// on a SharedArrayBuffer so a page moves between worker threads as a reference, never a copy.
//
// Physical layout per logical type (see arrow.ts for the zero-copy view as apache-arrow Data):
//   boolean                  bit-packed values (Arrow Bool)
//   tinyint/smallint/integer Int8Array / Int16Array / Int32Array
//   bigint, timestamp(ms)    Arrow Int64 layout read through an Int32Array of (lo, hi) pairs, so
//                            kernels never touch BigInt: value = hi * 2^32 + (lo >>> 0)
//   real / double            Float32Array / Float64Array
//   date                     Int32Array of days since 1970-01-01 (Arrow DateDay)
//   decimal(p,s)             Float64Array of the value scaled by 10^s (exact integers up to 2^53)
//   interval day to second   Float64Array of milliseconds; year to month: Int32Array of months
//   varchar                  Int32Array offsets (length + 1) over UTF-8 bytes (Arrow Utf8), or a
//                            dictionary: Int32Array indices into a shared Utf8 dictionary column
// Nulls: an Arrow validity bitmap (bit set = value present), or null when the column has no nulls.

import type { SqlType } from './types.js';

export type FixedValues = Uint8Array | Int8Array | Int16Array | Int32Array | Float32Array | Float64Array;

interface ColumnBase {
  readonly type: SqlType;
  readonly length: number;
  /** Arrow validity bitmap: bit i set when row i is not NULL; null when no row is NULL. */
  readonly validity: Uint8Array | null;
}

export interface FixedColumn extends ColumnBase {
  readonly kind: 'fixed';
  readonly values: FixedValues;
}

export interface VarcharColumn extends ColumnBase {
  readonly kind: 'varchar';
  readonly offsets: Int32Array;
  readonly data: Uint8Array;
}

export interface DictionaryColumn extends ColumnBase {
  readonly kind: 'dict';
  readonly indices: Int32Array;
  readonly dictionary: VarcharColumn;
}

export type Column = FixedColumn | VarcharColumn | DictionaryColumn;

export interface Page {
  readonly length: number;
  readonly columns: Column[];
}

export type TypedArrayConstructor =
  | Uint8ArrayConstructor
  | Int8ArrayConstructor
  | Int16ArrayConstructor
  | Int32ArrayConstructor
  | Float32ArrayConstructor
  | Float64ArrayConstructor;

/** A typed array on its own SharedArrayBuffer (at least 8 bytes so views stay valid). */
export function allocShared<C extends TypedArrayConstructor>(ctor: C, length: number): InstanceType<C> {
  const bytes = Math.max(8, Math.ceil((length * ctor.BYTES_PER_ELEMENT) / 8) * 8);
  const make = ctor as unknown as new (buffer: SharedArrayBuffer, offset: number, length: number) => InstanceType<C>;
  return new make(new SharedArrayBuffer(bytes), 0, length);
}

/**
 * A typed array on ordinary memory, for a page that stays on the thread that made it (a join's or
 * a filter's gathered rows feeding the next operator): allocating a SharedArrayBuffer costs about
 * four times the gather itself (6.5 vs 1.5 ns a row for 40k rows). sharedPage moves such a page's
 * buffers onto SharedArrayBuffers when it leaves the thread.
 */
export function allocLocal<C extends TypedArrayConstructor>(ctor: C, length: number): InstanceType<C> {
  return new ctor(length) as InstanceType<C>;
}

/** Which typed array holds a fixed-width type's values, and how many slots one row takes. */
export function fixedLayout(type: SqlType): { ctor: TypedArrayConstructor; slotsPerRow: number } {
  switch (type.id) {
    case 'boolean':
      return { ctor: Uint8Array, slotsPerRow: 1 / 8 };
    case 'tinyint':
      return { ctor: Int8Array, slotsPerRow: 1 };
    case 'smallint':
      return { ctor: Int16Array, slotsPerRow: 1 };
    case 'integer':
    case 'date':
    case 'interval year to month':
      return { ctor: Int32Array, slotsPerRow: 1 };
    case 'bigint':
    case 'timestamp':
      return { ctor: Int32Array, slotsPerRow: 2 };
    case 'real':
      return { ctor: Float32Array, slotsPerRow: 1 };
    case 'double':
    case 'decimal':
    case 'interval day to second':
    case 'unknown':
      return { ctor: Float64Array, slotsPerRow: 1 };
    case 'varchar':
      throw new Error('varchar is not a fixed-width type');
  }
}

/** Allocates an all-zero fixed-width column of `length` rows. */
export function allocFixedColumn(type: SqlType, length: number, withValidity = false, alloc: typeof allocShared = allocShared): FixedColumn {
  const { ctor, slotsPerRow } = fixedLayout(type);
  const values = alloc(ctor, Math.ceil(length * slotsPerRow));
  const validity = withValidity ? alloc(Uint8Array, Math.ceil(length / 8)) : null;
  return { kind: 'fixed', type, length, validity, values };
}

export function isNull(col: Column, row: number): boolean {
  const v = col.validity;
  return v !== null && (v[row >> 3] & (1 << (row & 7))) === 0;
}

export function setValid(validity: Uint8Array, row: number, valid: boolean): void {
  if (valid) validity[row >> 3] |= 1 << (row & 7);
  else validity[row >> 3] &= ~(1 << (row & 7));
}

const TWO_32 = 4294967296;

/** Reads an Int64-layout slot pair as a JS number (exact up to 2^53). */
export function readInt64(values: Int32Array, row: number): number {
  return values[2 * row + 1] * TWO_32 + (values[2 * row] >>> 0);
}

/** Writes an integral JS number into an Int64-layout slot pair. */
export function writeInt64(values: Int32Array, row: number, value: number): void {
  values[2 * row] = value >>> 0;
  values[2 * row + 1] = Math.floor(value / TWO_32);
}

export function readBit(bits: Uint8Array, row: number): boolean {
  return (bits[row >> 3] & (1 << (row & 7))) !== 0;
}

const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();

/** A Buffer view of the bytes (no copy), for native decoding. */
export function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A Buffer view of each column's bytes, made once (see readUtf8). */
const byteViews = new WeakMap<Uint8Array, SlicingBuffer>();

/**
 * Decodes row `row` of a Utf8 column without copying the bytes first. The Buffer view over the
 * column's bytes is made once per column: one per row cost ~350 of a row's ~530 ns
 * (Q22's substring(c_phone, 1, 2) as a projection).
 */
export function readUtf8(col: VarcharColumn, row: number): string {
  return utf8At(utf8View(col.data), col.offsets, row);
}

/** The Buffer view over a column's bytes that utf8At reads (made once per bytes array). */
export function utf8View(data: Uint8Array): SlicingBuffer {
  let view = byteViews.get(data);
  if (view === undefined) byteViews.set(data, (view = bufferOf(data) as SlicingBuffer));
  return view;
}

/** Row `row` of a Utf8 column whose bytes are `view` (utf8View) and offsets `offsets`: a kernel looks the view up once per page. */
export function utf8At(view: SlicingBuffer, offsets: Int32Array, row: number): string {
  const start = offsets[row];
  const end = offsets[row + 1];
  if (end === start) return '';
  // utf8Slice is what toString('utf8', start, end) calls after checking its arguments (the
  // offsets are the column's own): the checks were twice the decode's time.
  return HAS_UTF8_SLICE ? view.utf8Slice(start, end) : view.toString('utf8', start, end);
}

const HAS_UTF8_SLICE = typeof (Buffer.prototype as Partial<SlicingBuffer>).utf8Slice === 'function';

/** Node's Buffer decodes a byte range with utf8Slice (Buffer.prototype, undeclared in its types). */
export type SlicingBuffer = Buffer & { utf8Slice(start: number, end: number): string };

export function encodeUtf8(s: string): Uint8Array {
  return utf8Encoder.encode(s);
}

export function decodeUtf8(bytes: Uint8Array): string {
  return bytes.buffer instanceof SharedArrayBuffer ? bufferOf(bytes).toString('utf8') : utf8.decode(bytes);
}

/** The value at a row as a plain JS value: number, boolean, string, or null. Slow path only. */
export function readValue(col: Column, row: number): number | boolean | string | null {
  if (isNull(col, row)) return null;
  switch (col.kind) {
    case 'varchar':
      return readUtf8(col, row);
    case 'dict':
      return readUtf8(col.dictionary, col.indices[row]);
    case 'fixed': {
      const id = col.type.id;
      if (id === 'boolean') return readBit(col.values as Uint8Array, row);
      if (id === 'bigint' || id === 'timestamp') return readInt64(col.values as Int32Array, row);
      return col.values[row];
    }
  }
}

/** Values up to this many UTF-16 units (or bytes) are copied in a loop (VarcharBuilder.append, appendBytes). */
const SHORT_STRING = 64;

/** Builds a Utf8 column by appending strings (or raw UTF-8 bytes), growing its buffers as needed. */

export class VarcharBuilder {
  private offsets: Int32Array;
  private data: Uint8Array;
  private validity: Uint8Array | null = null;
  private count = 0;
  private bytes = 0;

  constructor(
    private readonly type: SqlType,
    expectedRows = 1024,
    expectedBytes = expectedRows * 16,
  ) {
    this.offsets = new Int32Array(expectedRows + 1);
    this.data = new Uint8Array(Math.max(16, expectedBytes));
  }

  get length(): number {
    return this.count;
  }

  private ensureRows(): void {
    if (this.count + 1 < this.offsets.length) return;
    const next = new Int32Array(this.offsets.length * 2);
    next.set(this.offsets);
    this.offsets = next;
    if (this.validity) {
      const v = new Uint8Array((next.length >> 3) + 1).fill(0xff);
      v.set(this.validity);
      this.validity = v;
    }
  }

  private ensureBytes(extra: number): void {
    if (this.bytes + extra <= this.data.length) return;
    let size = this.data.length * 2;
    while (size < this.bytes + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.data.subarray(0, this.bytes));
    this.data = next;
  }

  append(s: string): void {
    this.ensureRows();
    const n = s.length;
    // UTF-8 needs at most 3 bytes per UTF-16 code unit.
    this.ensureBytes(n * 3);
    const data = this.data;
    const at = this.bytes;
    // A short ASCII string is its own bytes: copied in a loop, without the view and the native
    // call encodeInto takes per row.
    let i = 0;
    if (n <= SHORT_STRING) for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      data[at + i] = c;
    }
    this.bytes += i === n ? n : utf8Encoder.encodeInto(s, data.subarray(at)).written;
    this.offsets[++this.count] = this.bytes;
  }

  appendBytes(bytes: Uint8Array, start = 0, end = bytes.length): void {
    this.ensureRows();
    const n = end - start;
    this.ensureBytes(n);
    // A short value in a loop: a view per row to set() from cost more than the copy.
    if (n <= SHORT_STRING) {
      const data = this.data;
      const at = this.bytes;
      for (let i = 0; i < n; i++) data[at + i] = bytes[start + i];
    } else this.data.set(bytes.subarray(start, end), this.bytes);
    this.bytes += n;
    this.offsets[++this.count] = this.bytes;
  }

  appendNull(): void {
    this.ensureRows();
    if (!this.validity) {
      this.validity = new Uint8Array((this.offsets.length >> 3) + 1).fill(0xff);
    }
    this.validity[this.count >> 3] &= ~(1 << (this.count & 7));
    this.offsets[++this.count] = this.bytes;
  }

  /** Copies the built column onto SharedArrayBuffers, sized exactly. */
  finish(): VarcharColumn {
    const offsets = allocShared(Int32Array, this.count + 1);
    offsets.set(this.offsets.subarray(0, this.count + 1));
    const data = allocShared(Uint8Array, this.bytes);
    data.set(this.data.subarray(0, this.bytes));
    let validity: Uint8Array | null = null;
    if (this.validity) {
      validity = allocShared(Uint8Array, Math.ceil(this.count / 8));
      validity.set(this.validity.subarray(0, validity.length));
    }
    return { kind: 'varchar', type: this.type, length: this.count, validity, offsets, data };
  }
}

/** Dictionaries above this many bytes are only the same when they are the same object. */
const DICTIONARY_COMPARE_BYTES = 1 << 20;

/**
 * Whether two dictionaries hold the same strings in the same order. A dictionary that crossed a
 * thread boundary is a new object over the same shared memory, so identity alone would miss it.
 */
export function sameDictionary(a: VarcharColumn, b: VarcharColumn): boolean {
  if (a === b) return true;
  if (a.length !== b.length || a.data.byteLength !== b.data.byteLength || a.data.byteLength > DICTIONARY_COMPARE_BYTES) return false;
  for (let i = 0; i <= a.length; i++) if (a.offsets[i] !== b.offsets[i]) return false;
  const bytes = a.offsets[a.length];
  for (let i = 0; i < bytes; i++) if (a.data[i] !== b.data[i]) return false;
  return (a.validity === null) === (b.validity === null);
}

/** A dictionary-encoded varchar column over a fixed dictionary (e.g. a TPC-H distribution). */
export function dictionaryColumn(type: SqlType, indices: Int32Array, dictionary: VarcharColumn): DictionaryColumn {
  return { kind: 'dict', type, length: indices.length, validity: null, indices, dictionary };
}

/** Builds a shared dictionary (a Utf8 column) from a list of strings. */
export function varcharColumnOf(type: SqlType, values: readonly (string | null)[]): VarcharColumn {
  const b = new VarcharBuilder(type, values.length);
  for (const v of values) {
    if (v === null) b.appendNull();
    else b.append(v);
  }
  return b.finish();
}

/** Approximate bytes a column holds (for stats and memory accounting). */
export function columnBytes(col: Column): number {
  const validity = col.validity ? col.validity.byteLength : 0;
  switch (col.kind) {
    case 'fixed':
      return col.values.byteLength + validity;
    case 'varchar':
      return col.offsets.byteLength + col.data.byteLength + validity;
    case 'dict':
      return col.indices.byteLength + validity;
  }
}

export function pageBytes(page: Page): number {
  let n = 0;
  for (const c of page.columns) n += columnBytes(c);
  return n;
}

function isShared(a: ArrayBufferView | null): boolean {
  return a === null || a.buffer instanceof SharedArrayBuffer;
}

function sharedCopy<T extends ArrayBufferView & { set(a: ArrayLike<number>): void }>(a: T): T {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const ctor = a.constructor as new (b: SharedArrayBuffer, o: number, n: number) => T;
  const n = (a as unknown as ArrayLike<number>).length;
  const bytes = Math.max(8, Math.ceil(a.byteLength / 8) * 8);
  const out = new ctor(new SharedArrayBuffer(bytes), 0, n);
  out.set(a as unknown as ArrayLike<number>);
  return out;
}

function sharedColumn(c: Column): Column {
  const validity = c.validity === null ? null : sharedCopy(c.validity);
  switch (c.kind) {
    case 'fixed':
      return isShared(c.values) && isShared(c.validity) ? c : { ...c, validity, values: sharedCopy(c.values) };
    case 'varchar':
      return isShared(c.offsets) && isShared(c.data) && isShared(c.validity) ? c : { ...c, validity, offsets: sharedCopy(c.offsets), data: sharedCopy(c.data) };
    case 'dict': {
      const dictionary = sharedColumn(c.dictionary);
      return isShared(c.indices) && isShared(c.validity) && dictionary === c.dictionary
        ? c
        : { ...c, validity, indices: sharedCopy(c.indices), dictionary: dictionary as typeof c.dictionary };
    }
  }
}

/** Whether pageRowRange can view a column's rows in place: not varchar (its offsets index the whole data). */
export function rowsViewable(c: Column): c is FixedColumn | DictionaryColumn {
  return c.kind !== 'varchar';
}

/**
 * Rows [start, end) of the page as views of its buffers (no copy), or null when a column cannot
 * be viewed so: varchar columns (their offsets index the whole data), or `start` within a byte of
 * a bitmap (not a multiple of 8).
 */
export function pageRowRange(page: Page, start: number, end: number): Page | null {
  if (start % 8 !== 0) return null;
  const columns: Column[] = [];
  for (const c of page.columns) {
    if (!rowsViewable(c)) return null;
    const validity = c.validity === null ? null : c.validity.subarray(start >> 3, (end + 7) >> 3);
    if (c.kind === 'dict') columns.push({ ...c, length: end - start, validity, indices: c.indices.subarray(start, end) });
    else {
      const { slotsPerRow } = fixedLayout(c.type);
      columns.push({ ...c, length: end - start, validity, values: c.values.subarray(start * slotsPerRow, Math.ceil(end * slotsPerRow)) });
    }
  }
  return { length: end - start, columns };
}

/** The page's columns at `positions`, in that order (no copy). */
export function projectPage(page: Page, positions: readonly number[]): Page {
  return { length: page.length, columns: positions.map((c) => page.columns[c]) };
}

/** The page with every buffer on a SharedArrayBuffer (copying only buffers that are not). */
export function sharedPage(page: Page): Page {
  const columns = page.columns.map(sharedColumn);
  return columns.every((c, i) => c === page.columns[i]) ? page : { length: page.length, columns };
}
