// Group ids for one numeric key (group-by-hash.ts singleNumericIds): a direct index in front of
// the hash table for integer keys in a small range. Whatever path a key takes, equal keys get
// equal ids, different keys different ids, in first-seen order, across pages whose keys fall
// inside and outside the index's range.

import { describe, expect, it } from 'vitest';
import { dictionaryColumn, type Column, type VarcharColumn } from '../src/data/page.js';
import { BIGINT, DOUBLE, INTEGER, VARCHAR, type SqlType } from '../src/data/types.js';
import { columnFromNumbers, columnFromStrings } from '../src/exec/build-columns.js';
import { GroupByHash } from '../src/exec/group-by-hash.js';

/** Ids as the table assigns them, and the same computed by a Map over the keys (NULL = 'null'). */
function check(type: SqlType, pages: readonly (number | null)[][]): number[][] {
  const table = new GroupByHash([false]);
  const expected = new Map<string, number>();
  const got: number[][] = [];
  for (const keys of pages) {
    const nulls = Uint8Array.from(keys, (k) => (k === null ? 1 : 0));
    const values = keys.map((k) => k ?? 0);
    const col = columnFromNumbers(type, values, keys.includes(null) ? nulls : null, keys.length);
    const ids = [...table.groupIds([col], keys.length)];
    const want = keys.map((k) => {
      const key = k === null ? 'null' : Object.is(k, -0) ? '0' : String(k);
      if (!expected.has(key)) expected.set(key, expected.size);
      return expected.get(key)!;
    });
    expect(ids).toEqual(want);
    got.push(ids);
  }
  expect(table.groupCount).toBe(expected.size);
  return got;
}

describe('one numeric group key', () => {
  const dense = (from: number, count: number): number[] => Array.from({ length: count }, (_, i) => from + ((i * 7919) % count));

  it('bigint keys in a small range, then keys beyond it (hash path), then back inside', () => {
    check(BIGINT, [dense(1, 5000), [...dense(1, 100), 2 ** 40, -(2 ** 40), 10 ** 7, 3], dense(2000, 4000), [2 ** 40, 10 ** 7, 1]]);
  });

  it('bigint keys read by their low words: a high word, or a low word of 2^31 and up, stays out of the index', () => {
    const far = Array.from({ length: 2000 }, (_, i) => 10 ** 9 + i * 3);
    // 3,000 groups only the index holds, then 2,000 that rehash the table several times around them.
    check(BIGINT, [dense(0, 3000), [2 ** 32 + 5, 2 ** 31 + 5, 2 ** 32, 5, 2 ** 31 - 1, ...far], dense(0, 3000).reverse(), [2 ** 32 + 5, far[7], 2 ** 31 + 5, 17]]);
    check(BIGINT, [dense(10 ** 6, 4096), [10 ** 6 - 1, 2 ** 32 + 10 ** 6, 10 ** 6 + 4095, -(10 ** 6)]]);
  });

  it('few keys over a range of up to 64k (a direct index all the same), then keys around it', () => {
    const spread = Array.from({ length: 300 }, (_, i) => 5000 + ((i * 7919) % 300) * 150);
    check(BIGINT, [spread, [...spread.slice(0, 50), 4999, 5000 + 300 * 150, 10 ** 6, 5150], spread.reverse()]);
  });

  it('the direct index widens for later keys beyond its first range, taking in keys the hash table held', () => {
    // First page: 2,000 keys over 1000-2999; later pages march up to 140k (each widening the
    // index), revisit old keys, and bring keys first placed in the hash table back in range.
    const march = (from: number, count: number, step: number): number[] => Array.from({ length: count }, (_, i) => from + i * step);
    const table = new GroupByHash([false]);
    const pages = [dense(1000, 2000), [100_000, ...march(3000, 3000, 5)], [500_000, 2 ** 31 + 7, ...march(20_000, 2000, 7)], dense(1000, 2000), march(30_000, 4000, 27), [500_000, 2 ** 31 + 7, 140_000, 100_000]];
    const expected = new Map<number, number>();
    for (const keys of pages) {
      const ids = [...table.groupIds([columnFromNumbers(BIGINT, keys, null, keys.length)], keys.length)];
      expect(ids).toEqual(keys.map((k) => (expected.has(k) ? expected.get(k)! : (expected.set(k, expected.size), expected.size - 1))));
    }
    expect(table.groupCount).toBe(expected.size);
    // 100,000 went into the hash table (too far for the 5k rows seen then) and moved into the
    // index once it reached that far. Only the keys no index may take stay in the table: 500,000
    // (too far for the rows seen) and 2^31 + 7 (beyond the low-word index).
    expect(table.hashedGroupCount).toBe(2);
  });

  it('widening in the general path (integer keys with NULLs): below 0, NULLs stay hashed', () => {
    const withNull = (keys: number[]): (number | null)[] => [...keys, null];
    const down = (from: number, count: number): number[] => Array.from({ length: count }, (_, i) => from - i * 3);
    check(INTEGER, [withNull(dense(0, 1000)), withNull(down(-10, 3000)), withNull(dense(-9000, 9000)), [null, 5, -8000, 70_000, 1_000_000]]);
  });

  it('integer keys with NULLs, repeated keys and a negative range', () => {
    check(INTEGER, [[5, null, -3, 5, -3, null, 0, 7], [-100, 7, null, 5]]);
  });

  it('doubles: fractions and NaN never use the index; -0 and 0 are one group', () => {
    check(DOUBLE, [[1, 2, 3, 4, 2, 1], [1.5, 2, Number.NaN, Number.NaN, -0, 0, 1.5]]);
    check(DOUBLE, [[0.25, 0.5], [1, 2, 1]]);
  });
});

describe('several keys led by a numeric one', () => {
  // Keys (dictionary string, integer[, dictionary string]): the leading-key path; pages without
  // NULLs take its inline loop (numericLeadIds), pages with NULLs the general one, on one table.
  const dict = columnFromStrings(VARCHAR, ['a', 'b', 'c', 'd', 'e'], 5) as VarcharColumn;
  const page = (rows: (readonly [number | null, number | null, number | null])[], three: boolean): Column[] => {
    const strings = (k: number): Column => {
      const nulls = rows.map((r) => r[k] === null);
      const col = dictionaryColumn(VARCHAR, Int32Array.from(rows, (r) => r[k] ?? 0), dict);
      return nulls.includes(true) ? { ...col, validity: Uint8Array.from({ length: Math.ceil(rows.length / 8) }, (_, b) => rows.slice(b * 8, b * 8 + 8).reduce((m, r, i) => (r[k] === null ? m : m | (1 << i)), 0)) } : col;
    };
    const ints = columnFromNumbers(INTEGER, rows.map((r) => r[1] ?? 0), rows.some((r) => r[1] === null) ? rows.map((r) => (r[1] === null ? 1 : 0)) : null, rows.length);
    return three ? [strings(0), ints, strings(2)] : [strings(0), ints];
  };
  const run = (pages: (readonly [number | null, number | null, number | null])[][], three: boolean): void => {
    const table = new GroupByHash(three ? [true, false, true] : [true, false]);
    const expected = new Map<string, number>();
    for (const rows of pages) {
      const ids = [...table.groupIds(page(rows, three), rows.length)];
      const want = rows.map((r) => {
        const key = JSON.stringify(three ? r : r.slice(0, 2));
        if (!expected.has(key)) expected.set(key, expected.size);
        return expected.get(key)!;
      });
      expect(ids).toEqual(want);
    }
    expect(table.groupCount).toBe(expected.size);
  };
  const rows = (count: number, seed: number, withNulls: boolean): (readonly [number | null, number | null, number | null])[] =>
    Array.from({ length: count }, (_, i) => {
      const x = (i * 7919 + seed * 104729) >>> 0;
      const maybe = (v: number, k: number): number | null => (withNulls && (x >> k) % 11 === 0 ? null : v);
      return [maybe(x % 5, 1), maybe((x >> 3) % 40, 2), maybe((x >> 7) % 5, 3)] as const;
    });

  for (const three of [false, true]) {
    it(`${three ? 3 : 2} keys: NULL groups never match rows without NULLs, and the table grows mid-page`, () => {
      run([rows(300, 1, true), rows(2000, 2, false), rows(500, 3, true), rows(3000, 4, false)], three);
      // A row whose present keys equal a NULL group's stored slots still gets its own group.
      run([[[0, null, 0], [null, 0, 0]], [[0, 0, 0], [0, 0, 0]]], three);
    });
  }
});

describe('four or more keys led by a numeric one (manyNumericLeadIds)', () => {
  // Pages without NULLs take the loop over the key columns, pages with NULLs the general one, on
  // one table; ids must match a Map over the key tuples, and the table grows mid-page.
  const run = (width: number): void => {
    const table = new GroupByHash(Array.from({ length: width }, () => false));
    const expected = new Map<string, number>();
    for (let p = 0; p < 6; p++) {
      const withNulls = p % 3 === 2;
      const n = 1500 + p * 700;
      const tuples = Array.from({ length: n }, (_, i) => {
        const x = (i * 7919 + p * 104729) >>> 0;
        return Array.from({ length: width }, (_, c) => (withNulls && ((x >> c) & 15) === 0 ? null : (x >> (2 * c)) % (3 + c)));
      });
      const cols = Array.from({ length: width }, (_, c) =>
        columnFromNumbers(c === 1 ? DOUBLE : BIGINT, tuples.map((t) => t[c] ?? 0), withNulls ? tuples.map((t) => (t[c] === null ? 1 : 0)) : null, n),
      );
      const ids = [...table.groupIds(cols, n)];
      const want = tuples.map((t) => {
        const key = JSON.stringify(t);
        if (!expected.has(key)) expected.set(key, expected.size);
        return expected.get(key)!;
      });
      expect(ids).toEqual(want);
    }
    expect(table.groupCount).toBe(expected.size);
  };
  for (const width of [4, 5, 7]) it(`${width} keys`, () => run(width));
});

describe('one plain varchar key (grouped by its bytes)', () => {
  it('equal strings share a group across plain and dictionary pages, NULL its own; the key column gives them back', () => {
    const table = new GroupByHash([true]);
    const expected = new Map<string, number>();
    const want = (values: readonly (string | null)[]): number[] =>
      values.map((v) => {
        const key = v === null ? '\u0000null' : v;
        if (!expected.has(key)) expected.set(key, expected.size);
        return expected.get(key)!;
      });
    // Many distinct long strings: the witness arena (64 KB at first) and the table grow mid-page.
    const first = Array.from({ length: 6000, }, (_, i) => (i % 97 === 0 ? null : i % 3 === 0 ? `k${i % 50}` : `customer-${'x'.repeat(i % 40)}-${i}-ä`));
    const second = ['', 'k1', null, 'é', '', '😀', 'k1', ...first.slice(0, 200)];
    for (const values of [first, second]) expect([...table.groupIds([columnFromStrings(VARCHAR, values, values.length)], values.length)]).toEqual(want(values));
    // A dictionary page with values seen before and new ones.
    const dict = columnFromStrings(VARCHAR, ['k1', 'new', 'é', 'customer-x-1-ä'], 4) as VarcharColumn;
    const indices = Int32Array.from([0, 1, 2, 3, 1]);
    expect([...table.groupIds([dictionaryColumn(VARCHAR, indices, dict)], 5)]).toEqual(want(['k1', 'new', 'é', 'customer-x-1-ä', 'new']));
    expect(table.groupCount).toBe(expected.size);
    const keys = table.keyColumn(0, VARCHAR, table.groupCount);
    // The bytes went into the key column as they were (an interned-string key comes back as a dictionary).
    expect(keys.kind).toBe('varchar');
    const decoded = Array.from({ length: table.groupCount }, (_, g) => {
      if (keys.validity !== null && ((keys.validity[g >> 3] >> (g & 7)) & 1) === 0) return '\u0000null';
      return keys.kind === 'varchar' ? Buffer.from(keys.data.subarray(keys.offsets[g], keys.offsets[g + 1])).toString('utf8') : '?';
    });
    expect(decoded).toEqual([...expected.keys()]);
  });
});
