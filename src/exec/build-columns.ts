// Building output columns from JS-side arrays (numbers with NULL flags, or strings).

import { allocFixedColumn, VarcharBuilder, type Column } from '../data/page.js';
import type { SqlType } from '../data/types.js';

export function columnFromNumbers(type: SqlType, values: ArrayLike<number>, nulls: ArrayLike<number> | null, n: number): Column {
  let anyNull = false;
  if (nulls !== null) {
    for (let i = 0; i < n; i++) {
      if (nulls[i] === 1) {
        anyNull = true;
        break;
      }
    }
  }
  const col = allocFixedColumn(type, n, anyNull);
  const out = col.values;
  const id = type.id;
  for (let i = 0; i < n; i++) {
    if (anyNull && (nulls as ArrayLike<number>)[i] === 1) continue;
    const v = values[i];
    if (id === 'boolean') {
      if (v) out[i >> 3] |= 1 << (i & 7);
    } else if (id === 'bigint' || id === 'timestamp') {
      out[2 * i] = v >>> 0;
      out[2 * i + 1] = Math.floor(v / 4294967296);
    } else out[i] = v;
  }
  if (anyNull && col.validity) {
    const validity = col.validity;
    for (let i = 0; i < n; i++) if ((nulls as ArrayLike<number>)[i] !== 1) validity[i >> 3] |= 1 << (i & 7);
  }
  return col;
}

export function columnFromStrings(type: SqlType, values: readonly (string | null | undefined)[], n: number): Column {
  const b = new VarcharBuilder(type, n);
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null || v === undefined) b.appendNull();
    else b.append(v);
  }
  return b.finish();
}
