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
