// Gathering rows by a selection vector: the one place rows are copied after a filter, and only for
// columns that are actually projected (late materialization).

import { allocShared, type Column, type DictionaryColumn, type FixedColumn, type VarcharColumn } from '../data/page.js';
import { fixedLayout } from '../data/page.js';

function gatherValidity(validity: Uint8Array | null, sel: Int32Array, count: number): Uint8Array | null {
  if (validity === null) return null;
  const out = allocShared(Uint8Array, Math.ceil(count / 8));
  let anyNull = false;
  for (let j = 0; j < count; j++) {
    const i = sel[j];
    if ((validity[i >> 3] >> (i & 7)) & 1) out[j >> 3] |= 1 << (j & 7);
    else anyNull = true;
  }
  return anyNull ? out : null;
}

export function gatherColumn(col: Column, sel: Int32Array, count: number): Column {
  const validity = gatherValidity(col.validity, sel, count);
  switch (col.kind) {
    case 'dict': {
      const indices = allocShared(Int32Array, count);
      const src = col.indices;
      for (let j = 0; j < count; j++) indices[j] = src[sel[j]];
      const out: DictionaryColumn = { kind: 'dict', type: col.type, length: count, validity, indices, dictionary: col.dictionary };
      return out;
    }
    case 'varchar': {
      const offsets = allocShared(Int32Array, count + 1);
      let bytes = 0;
      for (let j = 0; j < count; j++) {
        const i = sel[j];
        bytes += col.offsets[i + 1] - col.offsets[i];
        offsets[j + 1] = bytes;
      }
      const data = allocShared(Uint8Array, bytes);
      const src = col.data;
      const srcOffsets = col.offsets;
      // A plain byte loop: short strings copy faster than a subarray + set per row.
      let pos = 0;
      for (let j = 0; j < count; j++) {
        const i = sel[j];
        const end = srcOffsets[i + 1];
        for (let k = srcOffsets[i]; k < end; k++) data[pos++] = src[k];
      }
      const out: VarcharColumn = { kind: 'varchar', type: col.type, length: count, validity, offsets, data };
      return out;
    }
    case 'fixed': {
      const { ctor, slotsPerRow } = fixedLayout(col.type);
      const values = allocShared(ctor, Math.ceil(count * slotsPerRow));
      const src = col.values;
      if (col.type.id === 'boolean') {
        for (let j = 0; j < count; j++) {
          const i = sel[j];
          if ((src[i >> 3] >> (i & 7)) & 1) values[j >> 3] |= 1 << (j & 7);
        }
      } else if (slotsPerRow === 2) {
        for (let j = 0; j < count; j++) {
          const i = sel[j];
          values[2 * j] = src[2 * i];
          values[2 * j + 1] = src[2 * i + 1];
        }
      } else {
        for (let j = 0; j < count; j++) values[j] = src[sel[j]];
      }
      const out: FixedColumn = { kind: 'fixed', type: col.type, length: count, validity, values };
      return out;
    }
  }
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

/** Gathers by index where a negative index yields NULL (the outer side of an outer join). */
export function gatherWithNulls(col: Column | undefined, type: import('../data/types.js').SqlType, idx: Int32Array, count: number): Column {
  if (!col || col.length === 0) return nullColumn(type, count);
  let missing = false;
  const safe = new Int32Array(count);
  for (let j = 0; j < count; j++) {
    const i = idx[j];
    if (i < 0) missing = true;
    else safe[j] = i;
  }
  const g = gatherColumn(col, safe, count);
  if (!missing) return g;
  const validity = g.validity ?? allocShared(Uint8Array, Math.ceil(count / 8)).fill(0xff);
  for (let j = 0; j < count; j++) if (idx[j] < 0) validity[j >> 3] &= ~(1 << (j & 7));
  return { ...g, validity } as Column;
}
