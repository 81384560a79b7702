// Gathering rows by a selection vector: the one place rows are copied after a filter, and only for
// columns that are actually projected (late materialization). Gathered rows are on ordinary
// memory (allocLocal): they feed the next operator on this thread; a page leaving it is shared
// then (sharedPage). Fixed-width columns in the column arena are gathered by a wasm loop
// (compile/wasm-gather.ts).

import { allocLocal, allocShared, type Column, type DictionaryColumn, type FixedColumn, type Page, type VarcharColumn } from '../data/page.js';
import { fixedLayout } from '../data/page.js';
import { wasmGather } from './compile/wasm-gather.js';

function gatherValidity(validity: Uint8Array | null, sel: Int32Array, count: number): Uint8Array | null {
  if (validity === null) return null;
  const out = allocLocal(Uint8Array, Math.ceil(count / 8));
  let anyNull = false;
  for (let j = 0; j < count; j++) {
    const i = sel[j];
    if ((validity[i >> 3] >> (i & 7)) & 1) out[j >> 3] |= 1 << (j & 7);
    else anyNull = true;
  }
  return anyNull ? out : null;
}

// The row loops live in small functions over typed arrays only, each seeing one or two array
// types: the JIT optimizes a long loop while it runs (on-stack replacement), and a loop that also
// read column objects (of many hidden classes) was seen deoptimizing there again and again on
// "wrong map" (about 20 times a run of Q3, Q5, Q9 and Q10).

export function gatherColumn(col: Column, sel: Int32Array, count: number): Column {
  const validity = gatherValidity(col.validity, sel, count);
  switch (col.kind) {
    case 'dict': {
      const indices = gatherInt32(col.indices, sel, count);
      const out: DictionaryColumn = { kind: 'dict', type: col.type, length: count, validity, indices, dictionary: col.dictionary };
      return out;
    }
    case 'varchar': {
      const { offsets, data } = gatherStrings(col.offsets, col.data, sel, count);
      const out: VarcharColumn = { kind: 'varchar', type: col.type, length: count, validity, offsets, data };
      return out;
    }
    case 'fixed': {
      const out: FixedColumn = { kind: 'fixed', type: col.type, length: count, validity, values: gatherValues(col, sel, count) };
      return out;
    }
  }
}

function gatherValues(col: FixedColumn, sel: Int32Array, count: number): FixedColumn['values'] {
  const src = col.values;
  if (col.type.id === 'boolean') return gatherBits(src as Uint8Array, sel, count);
  if (src instanceof Float64Array) return gatherFloat64(src, sel, count);
  if (src instanceof Int32Array) return fixedLayout(col.type).slotsPerRow === 2 ? gatherPairs(src, sel, count) : gatherInt32(src, sel, count);
  const { ctor } = fixedLayout(col.type);
  const values = allocLocal(ctor, count);
  for (let j = 0; j < count; j++) values[j] = src[sel[j]];
  return values;
}

function gatherFloat64(src: Float64Array, sel: Int32Array, count: number): Float64Array {
  const values = allocLocal(Float64Array, count);
  if (wasmGather(src, 8, sel, count, values)) return values;
  for (let j = 0; j < count; j++) values[j] = src[sel[j]];
  return values;
}

function gatherInt32(src: Int32Array, sel: Int32Array, count: number): Int32Array {
  const values = allocLocal(Int32Array, count);
  if (wasmGather(src, 4, sel, count, values)) return values;
  for (let j = 0; j < count; j++) values[j] = src[sel[j]];
  return values;
}

/** Two Int32 slots per row (bigint, timestamp). */
function gatherPairs(src: Int32Array, sel: Int32Array, count: number): Int32Array {
  const values = allocLocal(Int32Array, 2 * count);
  if (wasmGather(src, 8, sel, count, values)) return values;
  for (let j = 0; j < count; j++) {
    const i = sel[j];
    values[2 * j] = src[2 * i];
    values[2 * j + 1] = src[2 * i + 1];
  }
  return values;
}

function gatherBits(src: Uint8Array, sel: Int32Array, count: number): Uint8Array {
  const values = allocLocal(Uint8Array, Math.ceil(count / 8));
  for (let j = 0; j < count; j++) {
    const i = sel[j];
    if ((src[i >> 3] >> (i & 7)) & 1) values[j >> 3] |= 1 << (j & 7);
  }
  return values;
}

function gatherStrings(srcOffsets: Int32Array, src: Uint8Array, sel: Int32Array, count: number): { offsets: Int32Array; data: Uint8Array } {
  const offsets = allocLocal(Int32Array, count + 1);
  let bytes = 0;
  for (let j = 0; j < count; j++) {
    const i = sel[j];
    bytes += srcOffsets[i + 1] - srcOffsets[i];
    offsets[j + 1] = bytes;
  }
  const data = allocLocal(Uint8Array, bytes);
  // A plain byte loop: short strings copy faster than a subarray + set per row.
  let pos = 0;
  for (let j = 0; j < count; j++) {
    const i = sel[j];
    const end = srcOffsets[i + 1];
    for (let k = srcOffsets[i]; k < end; k++) data[pos++] = src[k];
  }
  return { offsets, data };
}

/** The page's rows at `sel`, every column gathered. */
export function gatherPage(page: Page, sel: Int32Array): Page {
  return { length: sel.length, columns: page.columns.map((c) => gatherColumn(c, sel, sel.length)) };
}

/** Rows [start, start + count) of a column, copied. */
export function sliceColumn(col: Column, start: number, count: number): Column {
  const sel = new Int32Array(count);
  for (let j = 0; j < count; j++) sel[j] = start + j;
  return gatherColumn(col, sel, count);
}

/** A column of `count` NULLs. */
export function nullColumn(type: import('../data/types.js').SqlType, count: number): Column {
  const validity = allocShared(Uint8Array, Math.ceil(count / 8));
  if (type.id === 'varchar') {
    const out: VarcharColumn = { kind: 'varchar', type, length: count, validity, offsets: allocShared(Int32Array, count + 1), data: allocShared(Uint8Array, 0) };
    return out;
  }
  const { ctor, slotsPerRow } = fixedLayout(type);
  const out: FixedColumn = { kind: 'fixed', type, length: count, validity, values: allocShared(ctor, Math.ceil(count * slotsPerRow)) };
  return out;
}

function hasNegative(idx: Int32Array, count: number): boolean {
  for (let j = 0; j < count; j++) if (idx[j] < 0) return true;
  return false;
}

/** Gathers by index where a negative index yields NULL (the outer side of an outer join). */
export function gatherWithNulls(col: Column | undefined, type: import('../data/types.js').SqlType, idx: Int32Array, count: number): Column {
  if (!col || col.length === 0) return nullColumn(type, count);
  // Inner joins have no missing rows: gather by the indices as they are (no copy of them).
  if (!hasNegative(idx, count)) return gatherColumn(col, idx, count);
  const safe = new Int32Array(count);
  for (let j = 0; j < count; j++) {
    const i = idx[j];
    if (i >= 0) safe[j] = i;
  }
  const g = gatherColumn(col, safe, count);
  const validity = g.validity ?? allocShared(Uint8Array, Math.ceil(count / 8)).fill(0xff);
  for (let j = 0; j < count; j++) if (idx[j] < 0) validity[j >> 3] &= ~(1 << (j & 7));
  return { ...g, validity } as Column;
}

/**
 * Runs every gather loop once on two rows when the module loads. A loop first met on a large
 * column is optimized while it runs (on-stack replacement) before the code after it ever ran; that
 * code then deoptimizes it on every later call until the whole function is optimized, which can
 * take dozens of calls (gatherStrings: 48 deoptimizations over 3 runs of Q3, Q5, Q9 and Q10).
 */
function primeGatherLoops(): void {
  const sel = Int32Array.of(1, 0);
  gatherFloat64(Float64Array.of(1, 2), sel, 2);
  gatherInt32(Int32Array.of(1, 2), sel, 2);
  gatherPairs(Int32Array.of(1, 2, 3, 4), sel, 2);
  gatherBits(Uint8Array.of(1), sel, 2);
  gatherStrings(Int32Array.of(0, 1, 2), Uint8Array.of(97, 98), sel, 2);
  gatherValidity(Uint8Array.of(1), sel, 2);
}
primeGatherLoops();
