// arrowBytes (the yardstick of system.runtime.table_data and the bench's data-held table) against
// apache-arrow's own buffers for the same columns: every layout, with and without NULLs.

import { describe, expect, it } from 'vitest';
import { pageFromRows } from '../src/connectors/rows.js';
import { arrowBytes, toRecordBatch } from '../src/data/arrow.js';
import { dictionaryColumn, varcharColumnOf, type Page } from '../src/data/page.js';
import { BIGINT, BOOLEAN, DATE, decimal, DOUBLE, INTEGER, REAL, SMALLINT, TIMESTAMP, TINYINT, VARCHAR, type SqlType } from '../src/data/types.js';

/** Bytes apache-arrow's Data for each column holds, each buffer padded to 8 as an IPC body pads it. */
function arrowLibraryBytes(page: Page, types: readonly SqlType[]): number[] {
  const batch = toRecordBatch(page, types.map((_, i) => `c${i}`), types, true);
  const pad = (n: number): number => Math.ceil(n / 8) * 8;
  return batch.data.children.map((d) => {
    const bitmap = d.nullCount > 0 ? pad(d.nullBitmap?.byteLength ?? 0) : 0;
    return bitmap + pad(d.valueOffsets?.byteLength ?? 0) + pad(d.values?.byteLength ?? 0);
  });
}

const TYPES = [BOOLEAN, TINYINT, SMALLINT, INTEGER, BIGINT, REAL, DOUBLE, DATE, TIMESTAMP, decimal(12, 2), VARCHAR];
const value = (t: SqlType, i: number): unknown => (t.id === 'boolean' ? i % 3 === 0 : t.id === 'varchar' ? 'é'.repeat(i % 5) + String(i) : i % 100);

describe('arrowBytes', () => {
  for (const rows of [0, 1, 7, 8, 9, 1000, 1001]) {
    for (const nulls of [false, true]) {
      it(`matches apache-arrow for every layout (${rows} rows, ${nulls ? 'with' : 'no'} NULLs)`, () => {
        const data = Array.from({ length: rows }, (_, i) => TYPES.map((t) => (nulls && i % 4 === 1 ? null : value(t, i))));
        const page = pageFromRows(TYPES, data);
        expect(page.columns.map(arrowBytes)).toEqual(arrowLibraryBytes(page, TYPES));
      });
    }
  }

  it('counts a dictionary column as the plain Utf8 column it stands for', () => {
    const dictionary = varcharColumnOf(VARCHAR, ['AIR', 'MAIL', 'REG AIR', 'TRUCK']);
    const indices = Int32Array.from({ length: 999 }, (_, i) => (i * 7) % 4);
    const column = dictionaryColumn(VARCHAR, indices, dictionary);
    const page = { length: 999, columns: [column] };
    expect(arrowBytes(column)).toBe(arrowLibraryBytes(page, [VARCHAR])[0]);
    const text = [...indices].map((k) => ['AIR', 'MAIL', 'REG AIR', 'TRUCK'][k]).join('');
    expect(arrowBytes(column)).toBe(Math.ceil((4 * 1000) / 8) * 8 + Math.ceil(text.length / 8) * 8);
  });
});
