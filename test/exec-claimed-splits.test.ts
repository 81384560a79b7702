// Scan drivers over claimed splits (worker.ts, kind 'claimDrivers'): every worker on a stage takes
// the next split from one shared counter, so each split runs exactly once, in whichever worker
// claims it, and a stop flag ends the claiming.

import { describe, expect, it } from 'vitest';
import type { Split } from '../src/connectors/catalog.js';
import { BOOLEAN, INTEGER, DOUBLE } from '../src/data/types.js';
import { columnFromNumbers } from '../src/exec/build-columns.js';
import { numericValues } from '../src/exec/column-readers.js';
import type { FragmentSpec } from '../src/exec/specs.js';
import { runWorkerRequest, type ClaimedOutcome } from '../src/exec/worker.js';
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
  it('runs each split left once, with its index, one driver each, and moves the shared counter past the end', () => {
    const shared = claim(2);
    const first = drivers(runWorkerRequest({ kind: 'claimDrivers', fragment, splits, claim: shared }));
    expect(first.map((d) => d.split)).toEqual([2, 3, 4, 5]);
    // Each driver counted its own split's ten rows.
    for (const d of first) expect(numericValues(d.result.pages[0].columns[0])[0]).toBe(10);
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
      for (const page of o.result.pages) {
        const keys = numericValues(page.columns[0]);
        const counts = numericValues(page.columns[1]);
        for (let i = 0; i < page.length; i++) sums.set(keys[i], (sums.get(keys[i]) ?? 0) + counts[i]);
      }
    return sums;
  };

  it('give every split its own partial groups (merged in split order, the totals do not depend on which worker ran what)', () => {
    const outcomes = drivers(runWorkerRequest({ kind: 'claimDrivers', fragment: countByValue, splits: grouped(4, 10_000, 3), claim: claim(0) }));
    expect(outcomes.map((o) => o.result.pages.reduce((n, p) => n + p.length, 0))).toEqual([3, 3, 3, 3]);
    expect(totals(outcomes)).toEqual(new Map([[0, 13_336], [1, 13_332], [2, 13_332]]));
  });

  it('pass rows through once a split shows the grouping does not reduce', () => {
    const outcomes = drivers(runWorkerRequest({ kind: 'claimDrivers', fragment: countByValue, splits: grouped(3, 10_000, 10_000), claim: claim(0) }));
    expect(totals(outcomes).size).toBe(10_000);
    expect(totals(outcomes).get(9_999)).toBe(3);
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
