// Builds pages from JS rows, for small tables made on the main thread (system, information_schema,
// SHOW results). Values are in physical form: numbers (dates as days, timestamps as ms, decimals
// scaled), strings, booleans, or null.

import { allocFixedColumn, setValid, VarcharBuilder, writeInt64, type Column, type FixedColumn, type Page } from '../data/page.js';
import type { SqlType } from '../data/types.js';

export function pageFromRows(types: readonly SqlType[], rows: readonly (readonly unknown[])[]): Page {
  const columns: Column[] = types.map((type, c) => columnFromValues(type, rows.map((r) => r[c])));
  return { length: rows.length, columns };
}

export function columnFromValues(type: SqlType, values: readonly unknown[]): Column {
  const n = values.length;
  if (type.id === 'varchar') {
    const b = new VarcharBuilder(type, n);
    for (const v of values) {
      if (v === null || v === undefined) b.appendNull();
      else b.append(String(v));
    }
    return b.finish();
  }
  const hasNulls = values.some((v) => v === null || v === undefined);
  const col: FixedColumn = allocFixedColumn(type, n, hasNulls);
  const out = col.values;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    const present = v !== null && v !== undefined;
    if (col.validity) setValid(col.validity, i, present);
    if (!present) continue;
    if (type.id === 'boolean') {
      if (v) out[i >> 3] |= 1 << (i & 7);
    } else if (type.id === 'bigint' || type.id === 'timestamp') {
      writeInt64(out as Int32Array, i, Number(v));
    } else {
      out[i] = Number(v);
    }
  }
  return col;
}
