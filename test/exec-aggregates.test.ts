// Aggregate states merged in different orders (workers finish in any order) give the same result.

import { describe, expect, it } from 'vitest';
import { DOUBLE } from '../src/data/types.js';
import { createAccumulator } from '../src/exec/aggregates.js';
import { columnFromNumbers } from '../src/exec/build-columns.js';
import { numericValues } from '../src/exec/column-readers.js';
import type { AggregateSpec } from '../src/exec/specs.js';

/** Partial sums of very different magnitudes: plain float addition depends on their order. */
const partials = [1e16, 3.3, -1e16, 0.1, 7.7e15, 2.2, 1.1, -7.7e15, 123.456, 0.3, 5e15, 0.7];

function mergeInOrder(spec: AggregateSpec, order: readonly number[]): number {
  const acc = createAccumulator(spec, false);
  for (const i of order) {
    const states = spec.name === 'avg' ? [columnFromNumbers(DOUBLE, [partials[i]], null, 1), columnFromNumbers(DOUBLE, [1], null, 1)] : [columnFromNumbers(DOUBLE, [partials[i]], null, 1)];
    acc.merge(Int32Array.of(0), 1, states, 1);
  }
  return numericValues(acc.final(1))[0];
}

function shuffled(seed: number): number[] {
  const order = partials.map((_, i) => i);
  let x = seed;
  for (let i = order.length - 1; i > 0; i--) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const j = x % (i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

describe('double sums merge independently of order', () => {
  for (const name of ['sum', 'avg'] as const) {
    it(`${name}: every merge order gives the same, exactly rounded value`, () => {
      const spec: AggregateSpec = { name, args: [0], argType: DOUBLE, filter: null, distinct: false, type: DOUBLE };
      const results = new Set(Array.from({ length: 50 }, (_, seed) => mergeInOrder(spec, shuffled(seed + 1))));
      expect(results.size).toBe(1);
      // The exact sum is 3.3 + 0.1 + 2.2 + 1.1 + 123.456 + 0.3 + 0.7 + 5e15 (the large terms cancel).
      const exact = 5e15 + (3.3 + 0.1 + 2.2 + 1.1 + 123.456 + 0.3 + 0.7);
      expect([...results][0]).toBe(name === 'sum' ? exact : exact / partials.length);
      // Plain addition in the same orders does not agree with itself.
      const plain = new Set(Array.from({ length: 50 }, (_, seed) => shuffled(seed + 1).reduce((s, i) => s + partials[i], 0)));
      expect(plain.size).toBeGreaterThan(1);
    });
  }
});

describe('fused raw update', () => {
  it('equals the per-aggregate updates: count(*), count, sum and avg over nullable and non-null numbers', async () => {
    const { fusedUpdate } = await import('../src/exec/fused-update.js');
    const { BIGINT: BIG, DECIMAL_TYPE } = { BIGINT: { id: 'bigint' } as const, DECIMAL_TYPE: { id: 'decimal', precision: 12, scale: 2 } as const };
    const n = 1000;
    const groups = Int32Array.from({ length: n }, (_, i) => (i * 7) % 13);
    const doubles = columnFromNumbers(DOUBLE, Array.from({ length: n }, (_, i) => i * 0.25 - 40), null, n);
    const nullable = columnFromNumbers(DOUBLE, Array.from({ length: n }, (_, i) => i % 3), Array.from({ length: n }, (_, i) => (i % 5 === 0 || i % 13 === 4 ? 1 : 0)), n);
    const bigints = columnFromNumbers(BIG, Array.from({ length: n }, (_, i) => i * 1000), null, n);
    const decimals = columnFromNumbers(DECIMAL_TYPE, Array.from({ length: n }, (_, i) => i * 3), null, n);
    const specs: { spec: AggregateSpec; args: ReturnType<typeof columnFromNumbers>[] }[] = [
      { spec: { name: 'count_star', args: [], argType: null, filter: null, distinct: false, type: BIG }, args: [] },
      { spec: { name: 'count', args: [0], argType: DOUBLE, filter: null, distinct: false, type: BIG }, args: [nullable] },
      { spec: { name: 'sum', args: [0], argType: DOUBLE, filter: null, distinct: false, type: DOUBLE }, args: [doubles] },
      { spec: { name: 'sum', args: [0], argType: DOUBLE, filter: null, distinct: false, type: DOUBLE }, args: [nullable] },
      { spec: { name: 'sum', args: [0], argType: BIG, filter: null, distinct: false, type: BIG }, args: [bigints] },
      { spec: { name: 'avg', args: [0], argType: DOUBLE, filter: null, distinct: false, type: DOUBLE }, args: [nullable] },
      { spec: { name: 'avg', args: [0], argType: DECIMAL_TYPE, filter: null, distinct: false, type: DECIMAL_TYPE }, args: [decimals] },
    ];
    const groupCount = 13;
    const fused = specs.map((s) => createAccumulator(s.spec, false));
    const plain = specs.map((s) => createAccumulator(s.spec, false));
    // Two pages, so state carries across calls.
    for (let page = 0; page < 2; page++) {
      expect(fusedUpdate(fused, specs.map((s) => s.args), specs.map(() => false), groups, n, groupCount)).toBe(true);
      plain.forEach((acc, k) => acc.update(groups, n, specs[k].args, null, groupCount));
    }
    fused.forEach((acc, k) => {
      const a = acc.final(groupCount);
      const b = plain[k].final(groupCount);
      expect([...numericValues(a).subarray(0, groupCount)]).toEqual([...numericValues(b).subarray(0, groupCount)]);
      expect(a.validity === null ? null : [...a.validity]).toEqual(b.validity === null ? null : [...b.validity]);
    });
    // A FILTER clause (or a DISTINCT) keeps the per-aggregate path.
    expect(fusedUpdate(fused, specs.map((s) => s.args), specs.map((_, k) => k === 2), groups, n, groupCount)).toBe(false);
  });
});
