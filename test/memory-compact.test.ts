// Pages a write stores in the memory catalog (writes.ts compact): small runs merged, and every
// page on SharedArrayBuffers, also one that arrives alone in ordinary memory (a page gathered on
// the coordinator's thread), so scans hand it to workers by reference.
import { describe, expect, it } from 'vitest';
import { BIGINT, DOUBLE } from '../src/data/types.js';
import type { Column, FixedColumn, Page } from '../src/data/page.js';
import { compact } from '../src/coordinator/writes.js';
import { numericValues } from '../src/exec/column-readers.js';

function localPage(rows: number, from = 0): Page {
  const ints = new Int32Array(2 * rows);
  const doubles = new Float64Array(rows);
  for (let i = 0; i < rows; i++) {
    ints[2 * i] = from + i;
    doubles[i] = (from + i) / 2;
  }
  const columns: Column[] = [
    { kind: 'fixed', type: BIGINT, length: rows, validity: null, values: ints },
    { kind: 'fixed', type: DOUBLE, length: rows, validity: null, values: doubles },
  ];
  return { length: rows, columns };
}

const shared = (page: Page): boolean => page.columns.every((c) => (c as FixedColumn).values.buffer instanceof SharedArrayBuffer);

describe('compact', () => {
  it('puts a lone small page, a large page and merged runs on SharedArrayBuffers, values unchanged', () => {
    for (const pages of [[localPage(10)], [localPage(10_000)], [localPage(10), localPage(20, 10)]]) {
      const out = compact(pages, [BIGINT, DOUBLE]);
      expect(out.every(shared)).toBe(true);
      const rows = pages.reduce((n, p) => n + p.length, 0);
      expect(out.reduce((n, p) => n + p.length, 0)).toBe(rows);
      expect([...numericValues(out[0]!.columns[0]!)].slice(0, 3)).toEqual([0, 1, 2]);
      expect(numericValues(out[0]!.columns[1]!)[1]).toBe(0.5);
    }
  });
});
