// The build side of a join picks its key index by the key column's shape.

import { describe, expect, it } from 'vitest';
import { BIGINT, DOUBLE, VARCHAR, type SqlType } from '../src/data/types.js';
import { columnFromNumbers, columnFromStrings } from '../src/exec/build-columns.js';
import { buildJoinTable } from '../src/exec/join-table.js';
import { numericValues } from '../src/exec/column-readers.js';
import { HashJoinOperator } from '../src/exec/operators/hash-join.js';

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

  it('a range of at most 64k keys is indexed directly whatever the build size', () => {
    const t = table([1, 60_000, 30_000]);
    expect(t.keyBits).toBeNull();
    expect((t.direct as Int32Array).length).toBe(60_000);
    expect((t.direct as Int32Array)[30_000 - 1]).toBe(2);
  });

  it('a sparse but bounded range gets a rank index: bitmap, ranks per word, first row per rank', () => {
    // Keys 1,000 apart (a range over 64k, which would be indexed directly) cross 32-bit words;
    // 1000 twice (chained in build order), 1031/1032/1063 at word edges.
    const keys = [...Array.from({ length: 100 }, (_, i) => 1000 + i * 1000), 1000, 1031, 1032, 1063];
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

  it('keys in ascending order get the same rank index, duplicates chained in build order', () => {
    // Ascending (a table read in key order) takes its slots by counting, not from the bitmap.
    const keys: (number | null)[] = [];
    for (let i = 0; i < 300; i++) {
      keys.push(5_000 + i * 997);
      if (i % 7 === 0) keys.push(5_000 + i * 997); // a duplicate, right after
      if (i % 11 === 0) keys.push(null);
    }
    const t = table(keys);
    expect(t.keyRanks).not.toBeNull();
    expect(t.directUnique).toBe(false);
    const bits = t.keyBits as Int32Array;
    const rowsOf = (key: number): number[] => {
      const k = key - t.keyMin;
      const word = bits[k >>> 5];
      if (((word >>> (k & 31)) & 1) === 0) return [];
      const rank = (t.keyRanks as Int32Array)[k >>> 5] + [...Array(k & 31).keys()].filter((b) => (word >>> b) & 1).length;
      const rows: number[] = [];
      for (let j = (t.direct as Int32Array)[rank]; j >= 0; j = (t.directNext as Int32Array)[j]) rows.push(j);
      return rows;
    };
    const expected = new Map<number, number[]>();
    keys.forEach((key, row) => key !== null && expected.set(key, [...(expected.get(key) ?? []), row]));
    for (const [key, rows] of expected) expect(rowsOf(key), `key ${key}`).toEqual(rows);
    expect(rowsOf(5_001)).toEqual([]);
    expect((t.direct as Int32Array).length).toBe(expected.size);
    const unique = table(Array.from({ length: 200 }, (_, i) => 70_000 + i * 500));
    expect(unique.keyRanks).not.toBeNull();
    expect(unique.directUnique).toBe(true);
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

describe('two numeric keys, one indexed', () => {
  const page = (rows: (number | null)[][], types: readonly SqlType[]) => ({
    length: rows.length,
    columns: [0, 1].map((c) => columnFromNumbers(types[c], rows.map((r) => r[c] ?? 0), rows.map((r) => (r[c] === null ? 1 : 0)), rows.length)),
  });
  /** Inner-joins probe rows to build rows on both columns; the (probe row, build a, build b) triples, sorted. */
  const joinPairs = (build: (number | null)[][], probe: (number | null)[][], types: readonly SqlType[] = [BIGINT, BIGINT]): { pairs: number[][]; table: ReturnType<typeof buildJoinTable> } => {
    const table = buildJoinTable([page(build, types)], types, [0, 1], false);
    const out: number[][] = [];
    const withRows = page(probe, types);
    // A third probe column numbers the probe rows; build columns come after the probe's.
    withRows.columns.push(columnFromNumbers(BIGINT, probe.map((_, i) => i), null, probe.length));
    const join = new HashJoinOperator(1, table, 'inner', [0, 1], null, false, false, null, (p) => {
      const probeRow = numericValues(p.columns[2]);
      const buildA = numericValues(p.columns[3]);
      const buildB = numericValues(p.columns[4]);
      for (let i = 0; i < p.length; i++) out.push([probeRow[i], buildA[i], buildB[i]]);
    });
    join.addInput(withRows);
    return { pairs: out.sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]), table };
  };

  it('indexes the first key and compares the second: exactly the equal pairs, duplicates included', () => {
    const build = [[1, 10], [1, 11], [2, 10], [-3, 5], [1, 10], [7, 12]];
    const probe = [[1, 10], [2, 10], [2, 11], [-3, 5], [100, 10], [1, 100], [-4, 10], [7, 12], [1, null], [null, 10]];
    const { pairs, table } = joinPairs(build, probe);
    expect(table.indexedKey).toBe(0);
    expect(table.direct).not.toBeNull();
    expect(pairs).toEqual([[0, 1, 10], [0, 1, 10], [1, 2, 10], [3, -3, 5], [7, 7, 12]]);
  });

  it('build rows with a NULL in either key never match', () => {
    const { pairs, table } = joinPairs([[1, 10], [null, 10], [2, null], [2, 10], [1, null]], [[1, 10], [2, 10], [3, 10], [2, 0], [0, 10]]);
    expect(table.indexedKey).toBe(0);
    expect(pairs).toEqual([[0, 1, 10], [1, 2, 10]]);
  });

  it('NULL-free bigint probe keys are read in place, through a selection too, over a direct or a rank index', () => {
    const column = (index: number) => ({ kind: 'column' as const, index, type: BIGINT });
    /** (probe row, build row) pairs of an inner join, or the probe rows a semi join keeps. */
    const probeRows = (build: number[][], probe: number[][], sel: number[] | null, joinType: 'inner' | 'semi'): number[][] => {
      const t = buildJoinTable([page(build, [BIGINT, BIGINT])], [BIGINT, BIGINT], [0, 1], false);
      const input = page(probe, [BIGINT, BIGINT]);
      input.columns.push(columnFromNumbers(BIGINT, probe.map((_, i) => i), null, probe.length));
      const out: number[][] = [];
      const join = new HashJoinOperator(1, t, joinType, [0, 1], null, false, false, joinType === 'inner' ? [2, 3, 4] : null, (p) => {
        // Inner: the output columns [probe row, build a, build b]; semi: the probe's own three.
        const row = numericValues(p.columns[joinType === 'inner' ? 0 : 2]);
        const a = joinType === 'inner' ? numericValues(p.columns[1]) : null;
        const b = joinType === 'inner' ? numericValues(p.columns[2]) : null;
        for (let i = 0; i < p.length; i++) out.push(a === null || b === null ? [row[i]] : [row[i], a[i], b[i]]);
      });
      if (sel === null) join.addInput(input);
      else join.addSelected(input, Int32Array.from(sel), sel.length, [column(0), column(1), column(2)]);
      return out.sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]);
    };
    const naive = (build: number[][], probe: number[][], sel: number[] | null, joinType: 'inner' | 'semi'): number[][] =>
      (sel ?? probe.map((_, i) => i)).flatMap((i) => {
        const partners = build.filter((b) => b[0] === probe[i][0] && b[1] === probe[i][1]);
        return joinType === 'semi' ? (partners.length > 0 ? [[i]] : []) : partners.map((b) => [i, b[0], b[1]]);
      });
    // Probe keys: found, the other key different, a high word on either key (low words equal to
    // a build row's), below and above the range, a negative other key.
    const probeFor = (keys: number[]): number[][] => [
      [keys[0], 10], [keys[0], 11], [keys[1], 10], [keys[1], 2 ** 32 + 10], [2 ** 32 + keys[0], 10], [keys[2], 20], [0, 10],
      [keys[2] + 1, 20], [keys[3], -5], [2 ** 40, 10], [keys[3], 30], [keys[2], 2 ** 33 + 20],
    ];
    for (const keys of [[3, 50, 80, 90], [1000, 50_000, 900_000, 1_500_000]]) {
      const build = [[keys[0], 10], [keys[1], 10], [keys[0], 10], [keys[2], 20], [keys[3], -5], [keys[3], 30], [keys[1], 12]];
      const t = buildJoinTable([page(build, [BIGINT, BIGINT])], [BIGINT, BIGINT], [0, 1], false);
      expect(t.indexedKey).toBe(0);
      expect(t.keyRanks !== null).toBe(keys[3] > 1000);
      const probe = probeFor(keys);
      for (const joinType of ['inner', 'semi'] as const) {
        for (const sel of [null, [0, 2, 3, 5, 8, 10, 11], [1, 4, 6, 7, 9]]) expect(probeRows(build, probe, sel, joinType)).toEqual(naive(build, probe, sel, joinType));
      }
    }
  });

  it('the second key is indexed when only it has a usable integer range', () => {
    const { pairs, table } = joinPairs([[0.5, 1], [2.5, 2], [0.5, 2]], [[0.5, 2], [2.5, 2], [2.5, 1]], [DOUBLE, BIGINT]);
    expect(table.indexedKey).toBe(1);
    expect(pairs).toEqual([[0, 0.5, 2], [1, 2.5, 2]]);
  });
});

describe('single bigint keys probed in place', () => {
  /** (probe row, build row) pairs an inner join finds, probing the rows `sel` selects (all when null). */
  const probePairs = (buildKeys: (number | null)[], probeKeys: number[], sel: number[] | null): number[][] => {
    const t = table(buildKeys);
    const probe = {
      length: probeKeys.length,
      columns: [columnFromNumbers(BIGINT, probeKeys, null, probeKeys.length), columnFromNumbers(BIGINT, probeKeys.map((_, i) => i), null, probeKeys.length)],
    };
    const out: number[][] = [];
    const column = (index: number) => ({ kind: 'column' as const, index, type: BIGINT });
    // Output: the probe row number and the build key (build column 0 comes after the two probe columns).
    const join = new HashJoinOperator(1, t, 'inner', [0], null, false, false, [1, 2], (p) => {
      const row = numericValues(p.columns[0]);
      const key = numericValues(p.columns[1]);
      for (let i = 0; i < p.length; i++) out.push([row[i], key[i]]);
    });
    if (sel === null) join.addInput(probe);
    else join.addSelected(probe, Int32Array.from(sel), sel.length, [column(0), column(1)]);
    return out.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  };
  const naive = (buildKeys: (number | null)[], probeKeys: number[], sel: number[] | null): number[][] =>
    (sel ?? probeKeys.map((_, i) => i)).flatMap((i) => buildKeys.filter((k) => k === probeKeys[i]).map((k) => [i, k as number]));
  // Below the range, above it, negative, a key with a high word whose low word is in range, and
  // in the range but absent (6).
  const probeKeys = [3, 0, 9, 5, 2 ** 32 + 3, -1, 4, 1000, 5, 7, 2 ** 40, 6, 8];

  it('unique build keys (NULLs aside) are flagged, and each probe row finds its one partner', () => {
    const unique = [3, null, 5, 7, 4, 8];
    expect(table(unique).directUnique).toBe(true);
    for (const sel of [null, [0, 2, 3, 4, 6, 8, 10, 11, 12], [1, 5, 7, 11]]) expect(probePairs(unique, probeKeys, sel)).toEqual(naive(unique, probeKeys, sel));
  });

  it('a direct index at most 1/16 full (probes mostly miss) finds the same partners', () => {
    const sparse = [3, 5, 900, 7, 1800];
    const t = table(sparse);
    expect(t.directUnique).toBe(true);
    expect(t.keyRanks).toBeNull();
    expect(t.rowCount * 16).toBeLessThanOrEqual((t.direct as Int32Array).length);
    const probes = [...probeKeys, 900, 1800, 1799, 2 ** 32 + 900, 2];
    for (const sel of [null, [0, 3, 4, 13, 14, 16], [13, 15, 17]]) expect(probePairs(sparse, probes, sel)).toEqual(naive(sparse, probes, sel));
  });

  it('duplicate build keys are not flagged unique and every partner is found', () => {
    const duplicated = [3, 5, 7, 5, 4, 3, 3];
    expect(table(duplicated).directUnique).toBe(false);
    for (const sel of [null, [0, 3, 4, 8, 9]]) expect(probePairs(duplicated, probeKeys, sel)).toEqual(naive(duplicated, probeKeys, sel));
  });

  it('a mark join flags exactly the build rows some probe key finds (unique keys: one slot each; duplicates: every row of the chain)', () => {
    const column = (index: number) => ({ kind: 'column' as const, index, type: BIGINT });
    const marked = (buildKeys: (number | null)[], sel: number[] | null): number[] => {
      const t = buildJoinTable([{ length: buildKeys.length, columns: [columnFromNumbers(BIGINT, buildKeys.map((k) => k ?? 0), buildKeys.map((k) => (k === null ? 1 : 0)), buildKeys.length)] }], [BIGINT], [0], true);
      const probe = { length: probeKeys.length, columns: [columnFromNumbers(BIGINT, probeKeys, null, probeKeys.length)] };
      const join = new HashJoinOperator(1, t, 'mark', [0], null, false, false, null, () => undefined);
      if (sel === null) join.addInput(probe);
      else join.addSelected(probe, Int32Array.from(sel), sel.length, [column(0)]);
      return [...(t.matched as Uint8Array)].flatMap((m, j) => (m === 1 ? [j] : []));
    };
    const expected = (buildKeys: (number | null)[], sel: number[] | null): number[] => {
      const keys = new Set((sel ?? probeKeys.map((_, i) => i)).map((i) => probeKeys[i]));
      return buildKeys.flatMap((k, j) => (k !== null && keys.has(k) ? [j] : []));
    };
    for (const buildKeys of [[3, null, 5, 7, 4, 8], [3, 5, 7, 5, 4, 3, 3, 6]]) {
      expect(table(buildKeys).directUnique).toBe(!buildKeys.includes(3) || buildKeys.indexOf(3) === buildKeys.lastIndexOf(3));
      for (const sel of [null, [0, 4, 6, 11], [1, 2, 5, 7, 10], [4, 5, 7]]) expect(marked(buildKeys, sel)).toEqual(expected(buildKeys, sel));
    }
  });

  it('over a rank index too (sparse keys, unique or not)', () => {
    const sparse = Array.from({ length: 100 }, (_, i) => 1000 + i * 1000);
    const probes = [1000, 999, 2000, 2001, 2 ** 32 + 1000, 100_000, 100_001, 5 * 2 ** 32, 51_000, 200_000];
    expect(table(sparse).keyRanks).not.toBeNull();
    expect(table(sparse).directUnique).toBe(true);
    for (const sel of [null, [1, 2, 4, 6, 8]]) expect(probePairs(sparse, probes, sel)).toEqual(naive(sparse, probes, sel));
    const twice = [...sparse, 2000, 51_000];
    expect(table(twice).directUnique).toBe(false);
    expect(probePairs(twice, probes, null)).toEqual(naive(twice, probes, null));
  });
});

describe('join table sharing', () => {
  it('keeps every buffer of its page on a SharedArrayBuffer, whatever the build pages were', () => {
    // A page built on this thread (plain ArrayBuffers), as an inline pipeline or a message makes it.
    const keys = new Float64Array([3, 1, 2]);
    const local = { length: 3, columns: [{ kind: 'fixed', type: DOUBLE, length: 3, validity: null, values: keys } as const, columnFromStrings(VARCHAR, ['a', 'b', 'c'], 3)] };
    expect(keys.buffer).not.toBeInstanceOf(SharedArrayBuffer);
    const t = buildJoinTable([local], [DOUBLE, VARCHAR], [0], false);
    const buffers: ArrayBufferLike[] = [];
    for (const c of t.page.columns) {
      if (c.validity) buffers.push(c.validity.buffer);
      if (c.kind === 'fixed') buffers.push(c.values.buffer);
      if (c.kind === 'varchar') buffers.push(c.offsets.buffer, c.data.buffer);
      if (c.kind === 'dict') buffers.push(c.indices.buffer);
    }
    expect(buffers.length).toBeGreaterThan(2);
    for (const b of buffers) expect(b).toBeInstanceOf(SharedArrayBuffer);
    expect(numericValues(t.page.columns[0]!)).toEqual(new Float64Array([3, 1, 2]));
  });
});
