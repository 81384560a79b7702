// The WebAssembly join probe of unique integer keys finds exactly the build rows a plain lookup
// does, over each kind of key index (dense and sparse direct, rank), with and without a selection
// of probe rows, with keys in the arena or copied in, and leaves alone keys with a high word and
// negative or out-of-range keys.

import { afterEach, describe, expect, it } from 'vitest';
import { allocArena, createArena, installArena } from '../src/data/arena.js';
import { BIGINT } from '../src/data/types.js';
import { columnFromNumbers } from '../src/exec/build-columns.js';
import { setWasmKernels } from '../src/exec/compile/wasm-kernels.js';
import { probeChainedInt64, probeUniqueInt64, type UniqueKeyIndex } from '../src/exec/compile/wasm-probe.js';
import { buildJoinTable, type JoinTable } from '../src/exec/join-table.js';

afterEach(() => {
  installArena(null);
  setWasmKernels(true);
});

let seed = 7;
function random(m: number): number {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return Math.floor((seed / 2 ** 32) * m);
}

function table(keys: readonly number[]): JoinTable {
  const page = { length: keys.length, columns: [columnFromNumbers(BIGINT, keys, null, keys.length)] };
  return buildJoinTable([page], [BIGINT], [0], false);
}

function indexOf(t: JoinTable): UniqueKeyIndex {
  const direct = t.direct as Int32Array;
  const range = t.keyBits !== null ? t.keyBits.length * 32 : direct.length;
  return { tableId: t.id, direct, bits: t.keyBits, ranks: t.keyRanks, min: t.keyMin, range, dense: t.rowCount * 16 > range };
}

/** Probe keys as Int64 (lo, hi) pairs in `into`: build keys, absent ones, negatives, high words. */
function probeKeys(into: Int32Array, buildKeys: readonly number[], span: number): void {
  for (let r = 0; r < into.length / 2; r++) {
    const pick = random(10);
    const key = pick < 5 ? buildKeys[random(buildKeys.length)] : pick < 8 ? random(span) : pick === 8 ? -1 - random(1000) : 2 ** 32 + random(span);
    into[2 * r] = key | 0;
    into[2 * r + 1] = Math.floor(key / 2 ** 32);
  }
}

function expected(pairs: Int32Array, rows: Int32Array | null, n: number, buildKeys: readonly number[]): { probe: number[]; build: number[] } {
  const at = new Map(buildKeys.map((k, j) => [k, j]));
  const probe: number[] = [];
  const build: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = rows === null ? i : rows[i];
    const j = at.get(pairs[2 * r + 1] * 2 ** 32 + (pairs[2 * r] >>> 0));
    if (j === undefined) continue;
    probe.push(i);
    build.push(j);
  }
  return { probe, build };
}

function distinctKeys(count: number, span: number, offset: number): number[] {
  const keys = new Set<number>();
  while (keys.size < count) keys.add(offset + random(span));
  return [...keys];
}

const cases: [string, () => number[], number, UniqueKeyIndex['dense'] | 'rank'][] = [
  ['dense direct index', () => distinctKeys(12_000, 20_000, 1_000), 25_000, true],
  ['sparse direct index', () => distinctKeys(1_000, 60_000, 0), 70_000, false],
  ['rank index', () => distinctKeys(3_000, 4_000_000, 5), 4_500_000, 'rank'],
];

describe('wasm probe of unique integer keys', () => {
  for (const [name, makeKeys, span, kind] of cases) {
    it(`${name}: the same pairs as a lookup of every key, with and without selected rows`, () => {
      installArena(createArena());
      const buildKeys = makeKeys();
      const t = table(buildKeys);
      expect(t.directUnique).toBe(true);
      const index = indexOf(t);
      expect(kind === 'rank' ? index.bits !== null : index.bits === null && index.dense === kind).toBe(true);
      const n = 200_000;
      const pairs = allocArena(Int32Array, 2 * n);
      probeKeys(pairs, buildKeys, span);
      const rows = Int32Array.from({ length: n }, (_, i) => i).filter(() => random(3) > 0);
      for (const selection of [null, rows]) {
        const m = selection === null ? n : selection.length;
        const probe = new Int32Array(m);
        const build = new Int32Array(m);
        const count = probeUniqueInt64(pairs, selection, m, index, probe, build);
        const want = expected(pairs, selection, m, buildKeys);
        expect(want.probe.length).toBeGreaterThan(m / 3);
        expect(count).toBe(want.probe.length);
        expect([...probe.subarray(0, count)]).toEqual(want.probe);
        expect([...build.subarray(0, count)]).toEqual(want.build);
      }
    });
  }

  for (const [name, span, rank] of [
    ['direct index', 30_000, false],
    ['rank index', 4_000_000, true],
  ] as const) {
    it(`keys that repeat, ${name}: every build row of a key in build order, or only the first`, () => {
      installArena(createArena());
      // Each key one to four times, the copies apart in the build.
      const distinct = distinctKeys(rank ? 3_000 : 12_000, span, 1);
      const buildKeys = [...distinct, ...distinct.filter((_, x) => x % 2 === 0), ...distinct.filter((_, x) => x % 5 === 0), ...distinct.filter((_, x) => x % 7 === 0)];
      const t = table(buildKeys);
      expect(t.directUnique).toBe(false);
      expect(t.keyBits !== null).toBe(rank);
      const n = 120_000;
      const pairs = allocArena(Int32Array, 2 * n);
      probeKeys(pairs, distinct, span + 1);
      const rows = Int32Array.from({ length: n }, (_, i) => i).filter(() => random(2) > 0);
      const byKey = new Map<number, number[]>();
      buildKeys.forEach((k, j) => byKey.set(k, [...(byKey.get(k) ?? []), j]));
      for (const firstOnly of [false, true]) {
        for (const selection of [null, rows]) {
          const m = selection === null ? n : selection.length;
          const found = probeChainedInt64(pairs, selection, m, { ...indexOf(t), dense: false, chain: t.directNext as Int32Array, firstOnly, maxChain: t.maxChain });
          expect(found).not.toBeNull();
          const probe: number[] = [];
          const build: number[] = [];
          for (let i = 0; i < m; i++) {
            const r = selection === null ? i : selection[i];
            const matches = byKey.get(pairs[2 * r + 1] * 2 ** 32 + (pairs[2 * r] >>> 0)) ?? [];
            for (const j of firstOnly ? matches.slice(0, 1) : matches) {
              probe.push(i);
              build.push(j);
            }
          }
          expect(found?.count).toBe(probe.length);
          expect([...(found?.probe ?? [])]).toEqual(probe);
          expect([...(found?.build ?? [])]).toEqual(build);
        }
      }
    });
  }

  it('two keys, the index over one: the build rows whose other key is equal too, all or the first', () => {
    installArena(createArena());
    // partsupp-like: four suppliers per part.
    const parts = 6_000;
    const build: [number, number][] = [];
    for (let p = 1; p <= parts; p++) for (let s = 0; s < 4; s++) build.push([p, 1 + ((p * 7 + s * 2_503) % 10_000)]);
    const page = { length: build.length, columns: [columnFromNumbers(BIGINT, build.map((b) => b[0]), null, build.length), columnFromNumbers(BIGINT, build.map((b) => b[1]), null, build.length)] };
    const t = buildJoinTable([page], [BIGINT, BIGINT], [0, 1], false);
    expect(t.indexedKey).toBeGreaterThanOrEqual(0);
    const k = t.indexedKey;
    const n = 100_000;
    const keys = [allocArena(Int32Array, 2 * n), allocArena(Int32Array, 2 * n)];
    for (let r = 0; r < n; r++) {
      const [p, s] = random(3) === 0 ? [1 + random(parts + 50), 1 + random(10_000)] : build[random(build.length)];
      keys[0][2 * r] = p;
      keys[1][2 * r] = random(5) === 0 ? s + 1 : s;
    }
    const rows = Int32Array.from({ length: n }, (_, i) => i).filter(() => random(2) > 0);
    const at = new Map<string, number[]>();
    build.forEach((b, j) => at.set(`${b[0]},${b[1]}`, [...(at.get(`${b[0]},${b[1]}`) ?? []), j]));
    for (const firstOnly of [false, true]) {
      for (const selection of [null, rows]) {
        const m = selection === null ? n : selection.length;
        const index = { ...indexOf(t), dense: false, chain: t.directNext as Int32Array, firstOnly, maxChain: t.maxChain };
        const found = probeChainedInt64(keys[k], selection, m, index, { pairs: keys[1 - k], buildOther: t.numericKeys[1 - k] as Float64Array });
        expect(found).not.toBeNull();
        const probe: number[] = [];
        const matched: number[] = [];
        for (let i = 0; i < m; i++) {
          const r = selection === null ? i : selection[i];
          const js = at.get(`${keys[0][2 * r]},${keys[1][2 * r]}`) ?? [];
          for (const j of firstOnly ? js.slice(0, 1) : js) {
            probe.push(i);
            matched.push(j);
          }
        }
        expect(probe.length).toBeGreaterThan(m / 3);
        expect(found?.count).toBe(probe.length);
        expect([...(found?.probe ?? [])]).toEqual(probe);
        expect([...(found?.build ?? [])]).toEqual(matched);
      }
    }
  });

  it('copies keys outside the arena read in order, and declines them through a selection', () => {
    installArena(createArena());
    const buildKeys = distinctKeys(12_000, 20_000, 1_000);
    const index = indexOf(table(buildKeys));
    const n = 50_000;
    const outside = new Int32Array(2 * n);
    probeKeys(outside, buildKeys, 25_000);
    const [probe, build] = [new Int32Array(n), new Int32Array(n)];
    const count = probeUniqueInt64(outside, null, n, index, probe, build);
    const want = expected(outside, null, n, buildKeys);
    expect(count).toBe(want.probe.length);
    expect([...probe.subarray(0, count)]).toEqual(want.probe);
    expect([...build.subarray(0, count)]).toEqual(want.build);
    expect(probeUniqueInt64(outside, Int32Array.of(1, 5, 9), 3, index, probe, build)).toBe(-1);
  });

  it('declines an index not yet worth copying, and kernels switched off', () => {
    installArena(createArena());
    const buildKeys = distinctKeys(3_000, 4_000_000, 5);
    const index = indexOf(table(buildKeys));
    const out = () => [new Int32Array(100_000), new Int32Array(100_000)] as const;
    const outside = new Int32Array(200_000);
    probeKeys(outside, buildKeys, 4_500_000);
    const inside = allocArena(Int32Array, 200_000);
    inside.set(outside);
    // A megabyte of index is copied only after ~32k probe rows of its table.
    expect(probeUniqueInt64(inside, null, 1_000, index, ...out())).toBe(-1);
    setWasmKernels(false);
    expect(probeUniqueInt64(inside, null, 100_000, index, ...out())).toBe(-1);
    setWasmKernels(true);
    expect(probeUniqueInt64(inside, null, 100_000, index, ...out())).toBe(expected(inside, null, 100_000, buildKeys).probe.length);
  });
});
