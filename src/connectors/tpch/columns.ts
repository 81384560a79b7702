// Column builders for generated pages: every buffer ends on a SharedArrayBuffer.

import { allocArena } from '../../data/arena.js';
import {
  allocFixedColumn,
  allocShared,
  dictionaryColumn,
  type Column,
  type DictionaryColumn,
  type FixedColumn,
  type VarcharColumn,
} from '../../data/page.js';
import type { SqlType } from '../../data/types.js';
import type { TpchDictionary } from './dictionaries.js';

/**
 * Builds a Utf8 column whose longest value is known: bytes go straight into a scratch buffer sized
 * for the worst case, and finish() copies them onto an exactly sized SharedArrayBuffer.
 */
export class Utf8Writer {
  readonly data: Uint8Array;
  readonly offsets: Int32Array;
  pos = 0;
  private row = 0;

  constructor(rows: number, maxBytesPerRow: number) {
    this.data = new Uint8Array(Math.max(16, rows * maxBytesPerRow));
    this.offsets = allocShared(Int32Array, rows + 1);
  }

  /** Ends the current value. */
  end(): void {
    this.offsets[++this.row] = this.pos;
  }

  /** Appends ASCII bytes (without ending the value). */
  bytes(src: Uint8Array): void {
    const data = this.data;
    let p = this.pos;
    for (let i = 0; i < src.length; i++) data[p++] = src[i];
    this.pos = p;
  }

  /** Appends src[start, end) (without ending the value). */
  slice(src: Uint8Array, start: number, end: number): void {
    const data = this.data;
    let p = this.pos;
    for (let i = start; i < end; i++) data[p++] = src[i];
    this.pos = p;
  }

  /** Appends a zero-padded decimal number of `width` digits. */
  digits(value: number, width: number): void {
    const data = this.data;
    let v = value;
    for (let i = this.pos + width - 1; i >= this.pos; i--) {
      data[i] = 0x30 + (v % 10);
      v = Math.floor(v / 10);
    }
    this.pos += width;
  }

  /** Appends a decimal number zero-padded to at least `minWidth` digits (printf's %0Nd). */
  number(value: number, minWidth: number): void {
    let width = 1;
    for (let v = value; v >= 10; v = Math.floor(v / 10)) width++;
    this.digits(value, width > minWidth ? width : minWidth);
  }

  finish(type: SqlType): VarcharColumn {
    const data = allocShared(Uint8Array, this.pos);
    data.set(this.data.subarray(0, this.pos));
    return { kind: 'varchar', type, length: this.row, validity: null, offsets: this.offsets, data };
  }
}

const TWO_32 = 4294967296;

/** An Int64-layout column; `set` writes (lo, hi) directly. */
export class Int64Writer {
  readonly column: FixedColumn;
  readonly values: Int32Array;

  constructor(type: SqlType, rows: number) {
    // In the column arena, where the wasm join probe reads keys (compile/wasm-probe.ts).
    this.column = allocFixedColumn(type, rows, false, allocArena);
    this.values = this.column.values as Int32Array;
  }

  set(row: number, value: number): void {
    this.values[2 * row] = value >>> 0;
    this.values[2 * row + 1] = Math.floor(value / TWO_32);
  }
}

// Numeric columns and dictionary indices go to the column arena, where WebAssembly kernels read them.
export function int32Column(type: SqlType, rows: number): FixedColumn & { values: Int32Array } {
  return allocFixedColumn(type, rows, false, allocArena) as FixedColumn & { values: Int32Array };
}

export function float64Column(type: SqlType, rows: number): FixedColumn & { values: Float64Array } {
  return allocFixedColumn(type, rows, false, allocArena) as FixedColumn & { values: Float64Array };
}

export function dictColumn(dict: TpchDictionary, indices: Int32Array): DictionaryColumn {
  return dictionaryColumn(dict.type, indices, dict.column);
}

/** Indices for a dictionary column of `rows` rows, in the column arena (or on a SharedArrayBuffer). */
export function dictIndices(rows: number): Int32Array {
  return allocArena(Int32Array, rows);
}

export type { Column };
