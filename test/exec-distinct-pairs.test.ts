// The (group, value) set of DISTINCT aggregates: packed pairs while values are int32s, then wide
// slots; checked against a JS Set over many pages, with growth, NULLs, masks, -0, NaN and the
// switch from packed to wide in the middle of the input.

import { describe, expect, it } from 'vitest';
import { DistinctPairs } from '../src/exec/distinct-pairs.js';

/** A value as the set must see it: -0 is 0, every NaN one value. */
function canonical(v: number): string {
  return Number.isNaN(v) ? 'NaN' : String(v === 0 ? 0 : v);
}

interface Batch {
  readonly groups: number[];
  readonly values: number[];
  readonly mask?: number[];
  readonly nulls?: number[];
}

/** Feeds the batches; returns the rows kept per batch, and checks them against a reference Set. */
function feed(batches: readonly Batch[], groupCount: number): void {
  const pairs = new DistinctPairs();
  const reference = new Set<string>();
  for (const b of batches) {
    const n = b.groups.length;
    const keep = new Uint8Array(n);
    pairs.add(Int32Array.from(b.groups), Float64Array.from(b.values), b.mask ? Uint8Array.from(b.mask) : null, b.nulls ? Uint8Array.from(b.nulls) : null, keep, n, groupCount);
    const want = b.groups.map((g, i) => {
      if (b.mask?.[i] === 0 || b.nulls?.[i] === 1) return 0;
      const key = `${g}:${canonical(b.values[i])}`;
      if (reference.has(key)) return 0;
      reference.add(key);
      return 1;
    });
    expect([...keep]).toEqual(want);
  }
}

function randomBatch(seed: number, n: number, groups: number, value: (i: number, r: number) => number): Batch {
  let x = seed;
  const next = (): number => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x / 4294967296;
  };
  return {
    groups: Array.from({ length: n }, () => Math.floor(next() * groups)),
    values: Array.from({ length: n }, (_, i) => value(i, next())),
    mask: Array.from({ length: n }, () => (next() < 0.1 ? 0 : 1)),
    nulls: Array.from({ length: n }, () => (next() < 0.05 ? 1 : 0)),
  };
}

describe('DistinctPairs', () => {
  it('packed: int32 values (negative, -0 and 0 alike) over pages that grow the table', () => {
    const ints = (i: number, r: number): number => (i % 97 === 0 ? -0 : Math.floor(r * 4000) - 2000);
    feed([1, 2, 3, 4, 5].map((seed) => randomBatch(seed, 3000, 700, ints)), 700);
  });

  it('wide from the start: doubles, NaN of several bit patterns, huge integers', () => {
    const nan2 = new Float64Array(new Uint32Array([1, 0x7ff80000]).buffer)[0];
    const doubles = (i: number, r: number): number => (i % 50 === 0 ? Number.NaN : i % 51 === 0 ? nan2 : i % 7 === 0 ? 2 ** 40 + Math.floor(r * 30) : Math.floor(r * 300) / 4);
    feed([1, 2, 3].map((seed) => randomBatch(seed, 2500, 300, doubles)), 300);
  });

  it('switches from packed to wide mid-stream and still knows the packed pairs', () => {
    const ints = (_: number, r: number): number => Math.floor(r * 200);
    const mixed = (i: number, r: number): number => (i % 3 === 0 ? Math.floor(r * 200) + 0.5 : i % 5 === 0 ? -0 : Math.floor(r * 200));
    feed([randomBatch(1, 2000, 50, ints), randomBatch(2, 2000, 50, ints), randomBatch(3, 2000, 50, mixed), randomBatch(4, 2000, 50, ints)], 50);
  });

  it('goes wide when group ids pass 2^21', () => {
    const big = 3_000_000;
    feed(
      [
        { groups: [0, 1, 0, 5], values: [7, 7, 7, 8] },
        { groups: [big - 1, 0, big - 1, 1], values: [7, 7, 7, 9] },
        // Packed, group × 2^32 + value would round neighbouring values to one double.
        { groups: Array.from({ length: 4000 }, () => big - 1), values: Array.from({ length: 4000 }, (_, i) => i) },
      ],
      big,
    );
  });
});
