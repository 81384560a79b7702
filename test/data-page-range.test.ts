// pageRowRange: rows [start, end) of a page as views of its buffers, for the workers' slices of
// cached splits; null where a view cannot be made (varchar, a bitmap cut within a byte).

import { describe, expect, it } from 'vitest';
import { pageRowRange, readValue, varcharColumnOf, type Page } from '../src/data/page.js';
import { BOOLEAN, BIGINT, DOUBLE, INTEGER, VARCHAR } from '../src/data/types.js';
import { columnFromNumbers } from '../src/exec/build-columns.js';

const rows = 40;
const values = (k: number): Array<number | null> => Array.from({ length: rows }, (_, i) => (i % 7 === 3 ? null : i * k));

describe('pageRowRange', () => {
  const page: Page = {
    length: rows,
    columns: [
      columnFromNumbers(INTEGER, values(1), null, rows),
      columnFromNumbers(DOUBLE, values(0.5), null, rows),
      columnFromNumbers(BIGINT, values(1_000_000_007), null, rows),
      columnFromNumbers(BOOLEAN, values(1).map((v) => (v === null ? null : v % 3 === 0 ? 1 : 0)), null, rows),
    ],
  };

  it('views the rows with their values and NULLs, sharing the buffers', () => {
    const range = pageRowRange(page, 16, 37);
    expect(range).not.toBeNull();
    expect(range!.length).toBe(21);
    for (let c = 0; c < page.columns.length; c++) {
      expect(range!.columns[c].length).toBe(21);
      for (let i = 0; i < 21; i++) expect(readValue(range!.columns[c], i)).toEqual(readValue(page.columns[c], 16 + i));
    }
    const view = range!.columns[1];
    expect(view.kind === 'fixed' && view.values.buffer).toBe(page.columns[1].kind === 'fixed' && page.columns[1].values.buffer);
  });

  it('declines a start within a bitmap byte and varchar columns', () => {
    expect(pageRowRange(page, 3, 20)).toBeNull();
    const text: Page = { length: 2, columns: [varcharColumnOf(VARCHAR, ['a', 'b'])] };
    expect(pageRowRange(text, 0, 1)).toBeNull();
  });
});
