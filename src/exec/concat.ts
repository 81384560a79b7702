// Concatenating pages into one (for sorts and final aggregation inputs).

import { allocShared, fixedLayout, sameDictionary, type Column, type Page, type VarcharColumn } from '../data/page.js';
import type { SqlType } from '../data/types.js';

export function concatPages(pages: readonly Page[], types: readonly SqlType[]): Page {
  if (pages.length === 1) return pages[0];
  const length = pages.reduce((n, p) => n + p.length, 0);
  const columns = types.map((type, c) => concatColumns(pages.map((p) => p.columns[c]), type, length));
  return { length, columns };
}

function concatColumns(cols: readonly Column[], type: SqlType, length: number): Column {
  const anyNull = cols.some((c) => c.validity !== null);
  let validity: Uint8Array | null = null;
  if (anyNull) {
    validity = allocShared(Uint8Array, Math.ceil(length / 8));
    let at = 0;
    for (const c of cols) {
      for (let i = 0; i < c.length; i++, at++) {
        if (c.validity === null || (c.validity[i >> 3] >> (i & 7)) & 1) validity[at >> 3] |= 1 << (at & 7);
      }
    }
  }
  if (cols.length > 0 && cols.every((c) => c.kind === 'dict' && cols[0].kind === 'dict' && sameDictionary(c.dictionary, cols[0].dictionary))) {
    const indices = allocShared(Int32Array, length);
    let at = 0;
    for (const c of cols) {
      if (c.kind !== 'dict') continue;
      indices.set(c.indices.subarray(0, c.length), at);
      at += c.length;
    }
    const first = cols[0];
    if (first.kind !== 'dict') throw new Error('unreachable');
    return { kind: 'dict', type, length, validity, indices, dictionary: first.dictionary };
  }
  if (type.id === 'varchar') return { ...concatUtf8(cols, type, length), validity };
  const { ctor, slotsPerRow } = fixedLayout(type);
  const values = allocShared(ctor, Math.ceil(length * slotsPerRow));
  if (type.id === 'boolean') {
    let at = 0;
    for (const c of cols) {
      if (c.kind !== 'fixed') continue;
      for (let i = 0; i < c.length; i++, at++) if ((c.values[i >> 3] >> (i & 7)) & 1) values[at >> 3] |= 1 << (at & 7);
    }
  } else {
    let at = 0;
    for (const c of cols) {
      if (c.kind !== 'fixed') continue;
      const n = c.length * slotsPerRow;
      (values as Float64Array).set((c.values as Float64Array).subarray(0, n), at);
      at += n;
    }
  }
  return { kind: 'fixed', type, length, validity, values };
}

/** Utf8 columns (or dictionary ones, decoded) as one: plain columns copy their bytes in one block. */
function concatUtf8(cols: readonly Column[], type: SqlType, length: number): VarcharColumn {
  let bytes = 0;
  for (const c of cols) {
    if (c.kind === 'varchar') bytes += c.offsets[c.length] - c.offsets[0];
    else if (c.kind === 'dict') for (let i = 0; i < c.length; i++) bytes += c.dictionary.offsets[c.indices[i] + 1] - c.dictionary.offsets[c.indices[i]];
    else throw new Error('a varchar column must be utf8 or dictionary encoded');
  }
  const offsets = allocShared(Int32Array, length + 1);
  const data = allocShared(Uint8Array, bytes);
  let row = 0;
  let at = 0;
  for (const c of cols) {
    if (c.kind === 'varchar') {
      const start = c.offsets[0];
      const end = c.offsets[c.length];
      data.set(c.data.subarray(start, end), at);
      const shift = at - start;
      for (let i = 1; i <= c.length; i++) offsets[row + i] = c.offsets[i] + shift;
      at += end - start;
      row += c.length;
    } else if (c.kind === 'dict') {
      const d = c.dictionary;
      for (let i = 0; i < c.length; i++) {
        const k = c.indices[i];
        for (let b = d.offsets[k]; b < d.offsets[k + 1]; b++) data[at++] = d.data[b];
        offsets[++row] = at;
      }
    }
  }
  return { kind: 'varchar', type, length, validity: null, offsets, data };
}
