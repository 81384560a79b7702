// Scan drivers over claimed splits (worker.ts, kind 'claimDrivers'): every worker on a stage takes
// the next split from one shared counter, so each split runs exactly once, in whichever worker
// claims it, and a stop flag ends the claiming. A fragment ending in a partial aggregation feeds
// all the splits a worker claims into one driver (one partial result per worker), until its
// groups outgrow a bound; other fragments run one driver per split.

import { describe, expect, it } from 'vitest';
import type { Split } from '../src/connectors/catalog.js';
import { BOOLEAN, INTEGER, DOUBLE } from '../src/data/types.js';
import { columnFromNumbers } from '../src/exec/build-columns.js';
import { numericValues } from '../src/exec/column-readers.js';
import { rowsDivisible } from '../src/exec/pipeline.js';
import type { FragmentSpec } from '../src/exec/specs.js';
import { MERGED_AGGREGATION_MAX_GROUPS, runWorkerRequest, type ClaimedOutcome } from '../src/exec/worker.js';
import type { Expr } from '../src/sql/ir.js';

/** Split s holds the integers s*10 .. s*10+9. */
const splits: Split[] = Array.from({ length: 6 }, (_, s) => {
  const values = Array.from({ length: 10 }, (_, i) => s * 10 + i);
  return { kind: 'pages', pages: [{ length: 10, columns: [columnFromNumbers(INTEGER, values, null, 10)] }], rows: 10 };
});

const column: Expr = { kind: 'column', index: 0, type: INTEGER };

/** sum(100 % x) per driver: the modulus fails on x = 0 (split 0). */
const fragment: FragmentSpec = {
  stageId: 1,
  source: { kind: 'scan', table: 'numbers', columns: [0] },
  inputTypes: [INTEGER],
  operators: [
    { op: 'filterProject', filter: null, projections: [{ kind: 'call', name: '$modulus', args: [{ kind: 'literal', value: 100, type: INTEGER }, column], type: INTEGER }] },
    { op: 'aggregate', step: 'partial', groupBy: [], aggregates: [{ name: 'count', args: [0], argType: INTEGER, filter: null, distinct: false, type: DOUBLE }] },
  ],
  outputTypes: [DOUBLE],
  partitioning: 'source',
};

function claim(next: number, stop = 0): Int32Array {
  const c = new Int32Array(new SharedArrayBuffer(8));
  c[0] = next;
  c[1] = stop;
  return c;
}

function drivers(response: ReturnType<typeof runWorkerRequest>): readonly ClaimedOutcome[] {
  if (!response.ok || !('drivers' in response)) throw new Error(`unexpected response ${JSON.stringify(response)}`);
  return response.drivers;
}

describe('claimed scan splits', () => {
  it('feeds each split left once into one partial aggregation, reported with the first split, and moves the shared counter past the end', () => {
    const shared = claim(2);
    const first = drivers(runWorkerRequest({ kind: 'claimDrivers', fragment, splits, claim: shared }));
    expect(first.map((d) => d.split)).toEqual([2]);
    // One driver counted the ten rows of each of splits 2-5.
    expect(numericValues(first[0].result?.pages[0].columns[0] ?? columnFromNumbers(INTEGER, [], null, 0))[0]).toBe(40);
    expect(first[0].result?.stats[0].inputPositions).toBe(40);
    expect(shared[0]).toBeGreaterThanOrEqual(splits.length);
    // A second worker on the same stage finds nothing left.
    expect(drivers(runWorkerRequest({ kind: 'claimDrivers', fragment, splits, claim: shared }))).toEqual([]);
  });

  it('claims nothing once the stop flag is set', () => {
    const stopped = claim(1, 1);
    expect(drivers(runWorkerRequest({ kind: 'claimDrivers', fragment, splits, claim: stopped }))).toEqual([]);
    expect(stopped[0]).toBe(1);
  });

  it('answers a failing split with its engine error', () => {
    const response = runWorkerRequest({ kind: 'claimDrivers', fragment, splits, claim: claim(0) });
    expect(response).toMatchObject({ ok: false, error: { errorName: 'DIVISION_BY_ZERO', message: 'Division by zero' } });
  });
});

describe('grouped aggregations over claimed splits', () => {
  /** `count` splits of `rows` integers each, value = row index % `groups`. */
  const grouped = (count: number, rows: number, groups: number): Split[] =>
    Array.from({ length: count }, () => ({ kind: 'pages', pages: [{ length: rows, columns: [columnFromNumbers(INTEGER, Array.from({ length: rows }, (_, i) => i % groups), null, rows)] }], rows }));
  const countByValue: FragmentSpec = {
    ...fragment,
    operators: [{ op: 'aggregate', step: 'partial', groupBy: [0], aggregates: [{ name: 'count', args: [0], argType: INTEGER, filter: null, distinct: false, type: DOUBLE }] }],
    outputTypes: [INTEGER, DOUBLE],
  };
  const totals = (outcomes: readonly ClaimedOutcome[]): Map<number, number> => {
    const sums = new Map<number, number>();
    for (const o of outcomes)
      for (const page of o.result?.pages ?? []) {
        const keys = numericValues(page.columns[0]);
        const counts = numericValues(page.columns[1]);
        for (let i = 0; i < page.length; i++) sums.set(keys[i], (sums.get(keys[i]) ?? 0) + counts[i]);
      }
    return sums;
  };

  it('keep one set of partial groups for all the splits a worker claims', () => {
    const outcomes = drivers(runWorkerRequest({ kind: 'claimDrivers', fragment: countByValue, splits: grouped(4, 10_000, 3), claim: claim(0) }));
    expect(outcomes.map((o) => o.result?.pages.reduce((n, p) => n + p.length, 0))).toEqual([3]);
    expect(totals(outcomes)).toEqual(new Map([[0, 13_336], [1, 13_332], [2, 13_332]]));
  });

  it('hand many groups on once they outgrow the bound, then pass rows through when the grouping does not reduce', () => {
    // Three splits of more distinct values each than the bound (no value in two splits).
    const rows = MERGED_AGGREGATION_MAX_GROUPS + 1000;
    const distinct: Split[] = Array.from({ length: 3 }, (_, s) => ({
      kind: 'pages',
      pages: [{ length: rows, columns: [columnFromNumbers(INTEGER, Array.from({ length: rows }, (_, i) => s * rows + i), null, rows)] }],
      rows,
    }));
    const outcomes = drivers(runWorkerRequest({ kind: 'claimDrivers', fragment: countByValue, splits: distinct, claim: claim(0) }));
    // The first split's groups closed its driver; the next splits ran one driver each, passed through.
    expect(outcomes.map((o) => o.split)).toEqual([0, 1, 2]);
    expect(totals(outcomes).size).toBe(3 * rows);
    expect(totals(outcomes).get(3 * rows - 1)).toBe(1);
  });

  it('pass rows through once a split shows the grouping does not reduce', () => {
    const outcomes = drivers(runWorkerRequest({ kind: 'claimDrivers', fragment: countByValue, splits: grouped(3, 10_000, 10_000), claim: claim(0) }));
    expect(totals(outcomes).size).toBe(10_000);
    expect(totals(outcomes).get(9_999)).toBe(3);
  });
});

describe('claimed splits with a sliced tail', () => {
  /** Split s: `rows` integers, value = s * 1,000,000 + row. */
  const big = (count: number, rows: number, extraPages = false): Split[] =>
    Array.from({ length: count }, (_, s) => {
      const values = Array.from({ length: rows }, (_, i) => s * 1_000_000 + i);
      const half = Math.floor(rows / 2) + 3;
      const pages = extraPages
        ? [
            { length: half, columns: [columnFromNumbers(INTEGER, values.slice(0, half), null, half)] },
            { length: rows - half, columns: [columnFromNumbers(INTEGER, values.slice(half), null, rows - half)] },
          ]
        : [{ length: rows, columns: [columnFromNumbers(INTEGER, values, null, rows)] }];
      return { kind: 'pages', pages, rows };
    });
  const sumOf: FragmentSpec = {
    ...fragment,
    operators: [{ op: 'aggregate', step: 'partial', groupBy: [], aggregates: [{ name: 'sum', args: [0], argType: INTEGER, filter: null, distinct: false, type: DOUBLE }, { name: 'count', args: [0], argType: INTEGER, filter: null, distinct: false, type: DOUBLE }] }],
    outputTypes: [DOUBLE, DOUBLE],
  };
  const expected = (splits: readonly Split[]): number[] => {
    let sum = 0;
    let count = 0;
    for (const split of splits) if (split.kind === 'pages') for (const p of split.pages) for (const v of numericValues(p.columns[0]).subarray(0, p.length)) (sum += v), count++;
    return [sum, count];
  };
  const summed = (outcomes: readonly ClaimedOutcome[]): number[] => {
    const total = [0, 0];
    for (const o of outcomes) for (const page of o.result?.pages ?? []) for (let c = 0; c < 2; c++) total[c] += numericValues(page.columns[c])[0];
    return total;
  };

  it('covers every row exactly once, also split over several pages, from any unit on', () => {
    for (const extraPages of [false, true]) {
      const splits = big(5, 10_000 + 77, extraPages);
      expect(summed(drivers(runWorkerRequest({ kind: 'claimDrivers', fragment: sumOf, splits, claim: claim(0), slicedTail: 2 })))).toEqual(expected(splits));
      // Units 0-2 are splits 0-2; units 3-6 the quarters of split 3, 7-10 those of split 4.
      const fromSecondQuarter = claim(4);
      const rest = drivers(runWorkerRequest({ kind: 'claimDrivers', fragment: sumOf, splits, claim: fromSecondQuarter, slicedTail: 2 }));
      expect(fromSecondQuarter[0]).toBeGreaterThanOrEqual(11);
      const quarter = Math.floor((10_077 / 4) / 1024) * 1024;
      const tail = [...expected(splits.slice(4))];
      let sum3 = 0;
      for (let i = quarter; i < 10_077; i++) sum3 += 3_000_000 + i;
      expect(summed(rest)).toEqual([tail[0] + sum3, tail[1] + 10_077 - quarter]);
    }
  });

  it('are only for partial aggregations after row-by-row operators (a single-step aggregation needs whole splits)', () => {
    expect(rowsDivisible(sumOf)).toBe(true);
    expect(rowsDivisible(fragment)).toBe(true);
    const grouped: FragmentSpec = { ...sumOf, operators: [{ op: 'aggregate', step: 'single', groupBy: [0], aggregates: [] }, ...sumOf.operators] };
    expect(rowsDivisible(grouped)).toBe(false);
    expect(rowsDivisible({ ...fragment, operators: fragment.operators.slice(0, 1) })).toBe(false);
  });

  it('runs each unit once when two claimers share the counter, per unit for a fragment without aggregation', () => {
    const splits = big(3, 4096 + 5);
    const filtered: FragmentSpec = {
      ...fragment,
      operators: [{ op: 'filterProject', filter: { kind: 'call', name: '$ge', args: [column, { kind: 'literal', value: 0, type: INTEGER }], type: BOOLEAN }, projections: [column] }],
      outputTypes: [INTEGER],
    };
    const outcomes = drivers(runWorkerRequest({ kind: 'claimDrivers', fragment: filtered, splits, claim: claim(0), slicedTail: 2 }));
    // Split 0 whole, splits 1 and 2 in four slices each (bounds on multiples of 1,024 rows).
    expect(outcomes.map((o) => o.split)).toEqual([0, 1, 1, 1, 1, 2, 2, 2, 2]);
    expect(outcomes.map((o) => o.result?.pages.reduce((n, p) => n + p.length, 0))).toEqual([4101, 1024, 1024, 1024, 1029, 1024, 1024, 1024, 1029]);
    const seen = outcomes.flatMap((o) => o.result?.pages.flatMap((p) => [...numericValues(p.columns[0]).subarray(0, p.length)]) ?? []);
    expect(new Set(seen).size).toBe(3 * 4101);
  });
});

describe('claimed splits of a fragment without aggregation', () => {
  it('run one driver per split', () => {
    const filtered: FragmentSpec = {
      ...fragment,
      operators: [{ op: 'filterProject', filter: { kind: 'call', name: '$gt', args: [column, { kind: 'literal', value: 13, type: INTEGER }], type: BOOLEAN }, projections: [column] }],
      outputTypes: [INTEGER],
    };
    const outcomes = drivers(runWorkerRequest({ kind: 'claimDrivers', fragment: filtered, splits, claim: claim(1) }));
    expect(outcomes.map((o) => o.split)).toEqual([1, 2, 3, 4, 5]);
    expect(outcomes.map((o) => o.result?.pages.reduce((n, p) => n + p.length, 0))).toEqual([6, 10, 10, 10, 10]);
  });
});

describe('driver output', () => {
  it('leaves the worker on SharedArrayBuffers although operators gather into ordinary memory', () => {
    const filtered: FragmentSpec = {
      ...fragment,
      operators: [{ op: 'filterProject', filter: { kind: 'call', name: '$gt', args: [column, { kind: 'literal', value: 13, type: INTEGER }], type: BOOLEAN }, projections: [column] }],
      outputTypes: [INTEGER],
    };
    const response = runWorkerRequest({ kind: 'driver', fragment: filtered, split: splits[1] });
    if (!response.ok || !('result' in response)) throw new Error(`unexpected response ${JSON.stringify(response)}`);
    const [page] = response.result.pages;
    expect([...numericValues(page.columns[0])]).toEqual([14, 15, 16, 17, 18, 19]);
    const values = (page.columns[0] as { values: Int32Array }).values;
    expect(values.buffer).toBeInstanceOf(SharedArrayBuffer);
  });
});
