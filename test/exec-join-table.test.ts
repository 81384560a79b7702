// The build side of a join picks its key index by the key column's shape.

import { describe, expect, it } from 'vitest';
import { BIGINT, DOUBLE, VARCHAR } from '../src/data/types.js';
import { columnFromNumbers, columnFromStrings } from '../src/exec/build-columns.js';
import { buildJoinTable } from '../src/exec/join-table.js';

const table = (keys: (number | null)[], type = BIGINT) => {
  const nulls = keys.map((k) => (k === null ? 1 : 0));
  const column = columnFromNumbers(type, keys.map((k) => k ?? 0), nulls, keys.length);
  return buildJoinTable([{ length: keys.length, columns: [column] }], [type], [0], false);
};

describe('join key index', () => {
  it('a dense integer range is indexed directly, chaining duplicates in build order', () => {
    const t = table([5, -2, 7, 5, null, 3]);
    expect(t.direct).not.toBeNull();
    expect(t.keyMin).toBe(-2);
    const direct = t.direct as Int32Array;
    const chain = t.directNext as Int32Array;
    expect(direct.length).toBe(10);
    const rowsOf = (key: number): number[] => {
      const rows: number[] = [];
      for (let j = direct[key + 2]; j >= 0; j = chain[j]) rows.push(j);
      return rows;
    };
    expect(rowsOf(5)).toEqual([0, 3]);
    expect(rowsOf(-2)).toEqual([1]);
    expect(rowsOf(4)).toEqual([]);
    expect(t.hasNullKey).toBe(true);
  });

  it('a sparse but bounded range gets a rank index: bitmap, ranks per word, first row per rank', () => {
    // Keys 50 apart cross 32-bit words; 1000 twice (chained in build order), 31/32/63 at word edges.
    const keys = [...Array.from({ length: 100 }, (_, i) => 1000 + i * 50), 1000, 1031, 1032, 1063];
    const t = table(keys);
    expect(t.direct).not.toBeNull();
    expect(t.keyRanks).not.toBeNull();
    const bits = t.keyBits as Int32Array;
    const has = (key: number): boolean => ((bits[(key - t.keyMin) >>> 5] >>> ((key - t.keyMin) & 31)) & 1) === 1;
    expect(keys.every(has)).toBe(true);
    expect(has(1001)).toBe(false);
    expect(has(1025)).toBe(false);
    const rowsOf = (key: number): number[] => {
      const k = key - t.keyMin;
      const word = bits[k >>> 5];
      const rank = (t.keyRanks as Int32Array)[k >>> 5] + [...Array(k & 31).keys()].filter((b) => (word >>> b) & 1).length;
      const rows: number[] = [];
      for (let j = (t.direct as Int32Array)[rank]; j >= 0; j = (t.directNext as Int32Array)[j]) rows.push(j);
      return rows;
    };
    keys.forEach((key, row) => expect(rowsOf(key)).toContain(row));
    expect(rowsOf(1000)).toEqual([0, 100]);
    expect(rowsOf(1063)).toEqual([103]);
    expect((t.direct as Int32Array).length).toBe(103);
  });

  it('a very sparse range, non-integer keys and strings are only hashed', () => {
    expect(table([1, 2 ** 30]).direct).toBeNull();
    expect(table([1, 2 ** 30]).keyBits).toBeNull();
    expect(table([1, 2 ** 22]).keyBits).not.toBeNull();
    expect(table([1, 1e12]).direct).toBeNull();
    expect(table([1, 1e12]).keyBits).toBeNull();
    expect(table([1.5, 2, 3], DOUBLE).direct).toBeNull();
    const strings = buildJoinTable([{ length: 2, columns: [columnFromStrings(VARCHAR, ['a', 'b'], 2)] }], [VARCHAR], [0], false);
    expect(strings.direct).toBeNull();
    expect(strings.keyBits).toBeNull();
  });
});
