// Window aggregates over frames (exec/operators/window-frames.ts): the monotonic queue (min/max)
// and the prefix-sum / segment-tree sums against a direct scan of each frame, over random values
// with NULLs, NaN and ties; and whole-partition min/max over tpch.tiny's 60k lineitems, which a
// scan of the frame per row (quadratic) cannot finish within the test's timeout.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frameExtremes, frameSums, type FrameInput } from '../src/exec/operators/window-frames.js';
import { runQueryOk, startServer, type TestServer } from './support/server.js';

/** A small deterministic generator (tests must not depend on Math.random). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Frames of a ROWS frame `start..end` (offsets; null = unbounded) over positions [ps, pe). */
function rowsFrames(ps: number, pe: number, start: number | null, end: number | null): { starts: Int32Array; ends: Int32Array } {
  const starts = new Int32Array(pe - ps);
  const ends = new Int32Array(pe - ps);
  for (let i = ps; i < pe; i++) {
    starts[i - ps] = start === null ? ps : Math.max(ps, i + start);
    ends[i - ps] = end === null ? pe - 1 : Math.min(pe - 1, i + end);
  }
  return { starts, ends };
}

/** NaN above every number, as ORDER BY orders doubles. */
const greater = (x: number, y: number): boolean => x > y || (Number.isNaN(x) && !Number.isNaN(y));

describe('window frame aggregates', () => {
  const n = 300;
  const rand = lcg(7);
  const nums = new Float64Array(n);
  const nulls = new Uint8Array(n);
  for (let r = 0; r < n; r++) {
    const x = rand();
    nulls[r] = x < 0.15 ? 1 : 0;
    nums[r] = x < 0.2 ? Number.NaN : Math.floor(rand() * 20) - 10 + (x < 0.5 ? 0.25 : 0);
  }
  // Rows in a shuffled order, as a sort would leave them.
  const perm = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [perm[i], perm[j]] = [perm[j], perm[i]];
  }
  const input: FrameInput = { perm, nums, strs: null, nulls };
  const frames: [number | null, number | null][] = [
    [null, null],
    [null, 0],
    [-3, 0],
    [-1, 1],
    [0, null],
    [-5, -2],
    [2, 4],
  ];

  it.each(frames)('ROWS %s..%s over partitions: min, max, sum and count equal a scan of the frame', (start, end) => {
    for (const [ps, pe] of [
      [0, 120],
      [120, 121],
      [121, n],
    ]) {
      const { starts, ends } = rowsFrames(ps, pe, start, end);
      const max = frameExtremes('max', input, ps, pe, starts, ends);
      const min = frameExtremes('min', input, ps, pe, starts, ends);
      const { sums, counts } = frameSums(input, false, ps, pe, starts, ends, start === null);
      for (let i = ps; i < pe; i++) {
        let best: number | null = null;
        let worst: number | null = null;
        let sum = 0;
        let count = 0;
        for (let k = starts[i - ps]; k <= ends[i - ps]; k++) {
          const row = perm[k];
          if (nulls[row] === 1) continue;
          const v = nums[row];
          if (best === null || greater(v, best)) best = v;
          if (worst === null || greater(worst, v)) worst = v;
          sum += v;
          count++;
        }
        expect(max[i - ps] < 0 ? null : nums[max[i - ps]]).toEqual(best);
        expect(min[i - ps] < 0 ? null : nums[min[i - ps]]).toEqual(worst);
        expect(counts[i - ps]).toBe(count);
        if (Number.isNaN(sum)) expect(sums[i - ps]).toBeNaN();
        else expect(sums[i - ps]).toBeCloseTo(sum, 9);
      }
    }
  });

  it('a sliding sum keeps the small values next to a huge one that left the frame', () => {
    const values = Float64Array.from([1e17, 1, 1, 1]);
    const { starts, ends } = rowsFrames(0, 4, -1, 0);
    const { sums } = frameSums({ perm: Int32Array.from([0, 1, 2, 3]), nums: values, strs: null, nulls: null }, false, 0, 4, starts, ends, false);
    expect([...sums]).toEqual([1e17, 1e17 + 1, 2, 2]);
  });
});

describe('window aggregates over large partitions', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  // The query runs on a worker thread, so the test's timeout bounds it (a scan of the frame per
  // row is 60k x 60k steps per function here, three functions).
  it('max and min over the whole of lineitem (OVER ()) and per returnflag answer within the timeout', { timeout: 15_000 }, async () => {
    const r = await runQueryOk(
      server.baseUrl,
      'select count(*), min(m), max(m), min(n), max(n), min(d), max(d) from (select max(extendedprice) over () m, min(extendedprice) over (partition by returnflag) n, min(discount) over () d from lineitem)',
    );
    const [count, minM, maxM, minN, maxN, minD, maxD] = r.rows[0].map(Number);
    expect(minD).toBe(0);
    expect(maxD).toBe(0);
    expect(count).toBe(60175);
    expect(minM).toBe(maxM);
    expect(minN).toBeLessThan(maxN);
    const whole = await runQueryOk(server.baseUrl, 'select max(extendedprice) from lineitem');
    expect(maxM).toBe(Number(whole.rows[0][0]));
  });
});
