// Row order of ORDER BY keys (sortedIndices): numbers ranked by counting (small integer ranges) or
// by sorting and binary search, strings by their interned bytes; checked against a plain stable
// comparison sort.

import { describe, expect, it } from 'vitest';
import { DOUBLE, INTEGER, VARCHAR } from '../src/data/types.js';
import { columnFromNumbers, columnFromStrings } from '../src/exec/build-columns.js';
import { topIndices } from '../src/exec/operators/order-by.js';
import { sortedIndices } from '../src/exec/sort-ranks.js';

/** Trino's order: NaN above every number, -0 equal to 0, NULLs first or last as asked; ties in input order. */
function expected(values: (number | null)[], ascending: boolean, nullsFirst: boolean): number[] {
  const compare = (a: number, b: number): number => {
    if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) === Number.isNaN(b) ? 0 : Number.isNaN(a) ? 1 : -1;
    return a < b ? -1 : a > b ? 1 : 0;
  };
  return values
    .map((v, i) => i)
    .sort((x, y) => {
      const a = values[x];
      const b = values[y];
      if (a === null || b === null) return a === b ? x - y : (a === null) === nullsFirst ? -1 : 1;
      return (ascending ? compare(a, b) : compare(b, a)) || x - y;
    });
}

describe('sortedIndices over a numeric key', () => {
  const values = [1.5, -0, Number.NaN, 0, null, -2, Number.NaN, 0, 7, -0, null, 1.5, Infinity, -Infinity];
  const page = { length: values.length, columns: [columnFromNumbers(DOUBLE, values.map((v) => v ?? 0), values.map((v) => (v === null ? 1 : 0)), values.length)] };

  for (const ascending of [true, false]) {
    for (const nullsFirst of [true, false]) {
      it(`${ascending ? 'ascending' : 'descending'}, NULLs ${nullsFirst ? 'first' : 'last'}: -0 ties with 0, NaN above all, ties in input order`, () => {
        expect([...sortedIndices(page, [{ index: 0, ascending, nullsFirst }])]).toEqual(expected(values, ascending, nullsFirst));
      });
    }
  }

  it('many distinct values (a second key breaks ties)', () => {
    const n = 5000;
    const a = Array.from({ length: n }, (_, i) => ((i * 7919) % 1000) / 8 - 60);
    const b = Array.from({ length: n }, (_, i) => (i * 31) % 7);
    const p = { length: n, columns: [columnFromNumbers(DOUBLE, a, null, n), columnFromNumbers(DOUBLE, b, null, n)] };
    const want = a.map((_, i) => i).sort((x, y) => b[y] - b[x] || a[x] - a[y] || x - y);
    expect([...sortedIndices(p, [{ index: 1, ascending: false, nullsFirst: false }, { index: 0, ascending: true, nullsFirst: false }])]).toEqual(want);
  });
});

describe('sortedIndices over integer and varchar keys (ranked by counting and by interned bytes)', () => {
  // A plain stable comparison sort of the same values is the reference.
  const n = 4000;
  const small = Array.from({ length: n }, (_, i) => (i % 29 === 0 ? null : i % 31 === 0 ? -0 : ((i * 37) % 41) - 20));
  const wide = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 2 ** 40 + i : -(2 ** 35) + ((i * 7919) % 997)));
  const text = Array.from({ length: n }, (_, i) => (i % 23 === 0 ? null : ['b', 'a', 'ä', 'B', '', 'ab', 'a\u0000', '日本', 'aa'][(i * 5) % 9]));
  const page = {
    length: n,
    columns: [
      columnFromNumbers(INTEGER, small.map((v) => v ?? 0), small.map((v) => (v === null ? 1 : 0)), n),
      columnFromNumbers(DOUBLE, wide, null, n),
      columnFromStrings(VARCHAR, text, n),
    ],
  };
  const values: readonly (readonly (number | string | null)[])[] = [small, wide, text];
  function reference(keys: readonly { index: number; ascending: boolean; nullsFirst: boolean }[]): number[] {
    return Array.from({ length: n }, (_, i) => i).sort((x, y) => {
      for (const k of keys) {
        const a = values[k.index][x];
        const b = values[k.index][y];
        if (a === null || b === null) {
          if (a === b) continue;
          return (a === null) === k.nullsFirst ? -1 : 1;
        }
        const c = a < b ? -1 : a > b ? 1 : 0;
        if (c !== 0) return k.ascending ? c : -c;
      }
      return x - y;
    });
  }
  const orders = [
    [{ index: 0, ascending: true, nullsFirst: false }],
    [{ index: 0, ascending: false, nullsFirst: true }],
    [{ index: 2, ascending: true, nullsFirst: true }],
    [{ index: 2, ascending: false, nullsFirst: false }, { index: 0, ascending: true, nullsFirst: false }],
    [{ index: 1, ascending: false, nullsFirst: false }],
    [{ index: 0, ascending: false, nullsFirst: false }, { index: 2, ascending: true, nullsFirst: false }, { index: 1, ascending: true, nullsFirst: false }],
  ];
  for (const [k, keys] of orders.entries()) {
    it(`order ${k} equals a comparison sort (NULLs, -0, ties in input order, multi-byte text)`, () => {
      expect([...sortedIndices(page, keys)]).toEqual(reference(keys));
    });
  }
});

describe('topIndices: the first N rows of the order without sorting the rest', () => {
  // Few distinct values per key (many ties), NULLs, NaN, -0, strings.
  const n = 3000;
  const num = Array.from({ length: n }, (_, i) => (i % 17 === 0 ? null : i % 13 === 0 ? Number.NaN : i % 11 === 0 ? -0 : ((i * 37) % 23) - 11));
  const int = Array.from({ length: n }, (_, i) => (i % 19 === 0 ? null : (i * 7) % 5));
  // Strings with prefixes of each other, and characters where UTF-16 order and byte order part
  // (U+E000 and above against characters outside the BMP).
  const words = ['b', 'a', 'ä', 'B', '', 'ab', 'abc', '\uE000x', '😀', 'a😀', 'a\uE001', '\uFFFDz', 'é', 'e'];
  const str = Array.from({ length: n }, (_, i) => (i % 23 === 0 ? null : words[(i * 3) % words.length]));
  const page = {
    length: n,
    columns: [
      columnFromNumbers(DOUBLE, num.map((v) => v ?? 0), num.map((v) => (v === null ? 1 : 0)), n),
      columnFromNumbers(INTEGER, int.map((v) => v ?? 0), int.map((v) => (v === null ? 1 : 0)), n),
      columnFromStrings(VARCHAR, str, n),
    ],
  };
  const orders = [
    [{ index: 0, ascending: false, nullsFirst: false }],
    [{ index: 0, ascending: true, nullsFirst: true }, { index: 1, ascending: false, nullsFirst: false }],
    [{ index: 2, ascending: true, nullsFirst: false }, { index: 0, ascending: false, nullsFirst: true }],
    [{ index: 1, ascending: true, nullsFirst: true }, { index: 2, ascending: false, nullsFirst: true }, { index: 0, ascending: true, nullsFirst: false }],
  ];
  for (const [k, keys] of orders.entries()) {
    it(`order ${k}: equals the full sort's first rows, for several N`, () => {
      const all = [...sortedIndices(page, keys)];
      for (const count of [0, 1, 2, 10, 99, 374]) expect([...topIndices(page, keys, count)]).toEqual(all.slice(0, count));
    });
  }
});
