// Aggregate states merged in different orders (workers finish in any order) give the same result.

import { describe, expect, it } from 'vitest';
import { dictionaryColumn, type Page, type VarcharColumn } from '../src/data/page.js';
import { BIGINT, BOOLEAN, decimal, DOUBLE, INTEGER, VARCHAR, type SqlType } from '../src/data/types.js';
import { HashAggregateOperator } from '../src/exec/operators/hash-aggregate.js';
import type { Expr } from '../src/sql/ir.js';
import { createAccumulator, rowStates } from '../src/exec/aggregates.js';
import { columnFromNumbers, columnFromStrings } from '../src/exec/build-columns.js';
import { nullFlags, numericValues, stringValues } from '../src/exec/column-readers.js';
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

describe('fused aggregation', () => {
  const n = 1000;
  const DEC = decimal(12, 2);
  const groupSpec = (name: AggregateSpec['name'], arg: number | null, argType: SqlType | null, type: SqlType): AggregateSpec => ({ name, args: arg === null ? [] : [arg], argType, filter: null, distinct: false, type });
  /** Columns: 0 dictionary key, 1 integer key, 2 double, 3 nullable double, 4 bigint, 5 decimal. */
  function page(dictionary: ReturnType<typeof columnFromStrings>, shift: number): Page {
    const keys = dictionaryColumn(VARCHAR, Int32Array.from({ length: n }, (_, i) => (i * 7 + shift) % 3), dictionary as VarcharColumn);
    return {
      length: n,
      columns: [
        keys,
        columnFromNumbers(INTEGER, Array.from({ length: n }, (_, i) => (i * 13 + shift) % 17), null, n),
        columnFromNumbers(DOUBLE, Array.from({ length: n }, (_, i) => i * 0.25 - 40 + shift), null, n),
        columnFromNumbers(DOUBLE, Array.from({ length: n }, (_, i) => (i + shift) % 3), Array.from({ length: n }, (_, i) => (i % 5 === 0 || (i + shift) % 13 === 4 ? 1 : 0)), n),
        columnFromNumbers(BIGINT, Array.from({ length: n }, (_, i) => i * 1000), null, n),
        columnFromNumbers(DEC, Array.from({ length: n }, (_, i) => i * 3 + shift), null, n),
      ],
    };
  }
  const types = [VARCHAR, INTEGER, DOUBLE, DOUBLE, BIGINT, DEC];
  const aggregates = [
    groupSpec('count_star', null, null, BIGINT),
    groupSpec('count', 3, DOUBLE, BIGINT),
    groupSpec('sum', 2, DOUBLE, DOUBLE),
    groupSpec('sum', 3, DOUBLE, DOUBLE),
    groupSpec('sum', 4, BIGINT, BIGINT),
    groupSpec('avg', 3, DOUBLE, DOUBLE),
    groupSpec('avg', 5, DEC, DEC),
  ];

  /** What the aggregates give per group key (key -1: no key, one global group ''), computed row by row. */
  function expected(pages: readonly Page[], key: number, sel: ((i: number) => boolean) | null): Map<string, (number | null)[]> {
    const out = new Map<string, { rows: number; count: number; s2: number; s3: number | null; s4: number; a3: number; n3: number; s5: number }>();
    for (const p of pages) {
      const keyValues = key < 0 ? new Array<string>(n).fill('') : key === 0 ? stringValues(p.columns[0]) : [...numericValues(p.columns[1])].map(String);
      const [d2, d3, d4, d5] = [2, 3, 4, 5].map((c) => numericValues(p.columns[c]));
      const nulls3 = nullFlags(p.columns[3]);
      for (let i = 0; i < n; i++) {
        if (sel !== null && !sel(i)) continue;
        const g = out.get(keyValues[i]) ?? { rows: 0, count: 0, s2: 0, s3: null, s4: 0, a3: 0, n3: 0, s5: 0 };
        out.set(keyValues[i], g);
        g.rows++;
        g.s2 += d2[i];
        g.s4 += d4[i];
        g.s5 += d5[i];
        if (nulls3?.[i] !== 1) {
          g.count++;
          g.s3 = (g.s3 ?? 0) + d3[i];
          g.a3 += d3[i];
          g.n3++;
        }
      }
    }
    return new Map([...out].map(([k, g]) => [k, [g.rows, g.count, g.s2, g.s3, g.s4, g.n3 === 0 ? null : g.a3 / g.n3, Math.round(g.s5 / g.rows)]]));
  }

  function run(key: number, pages: readonly Page[], sel: ((i: number) => boolean) | null): Map<string, (number | null)[]> {
    const outputs: Page[] = [];
    const op = new HashAggregateOperator(1, 'single', key < 0 ? [] : [key], aggregates, types, (p) => outputs.push(p));
    const identity = types.map((type, index): Expr => ({ kind: 'column', index, type }));
    const shapes = pages[0].columns.map((c) => ({ kind: c.kind, type: c.type, nullable: c.validity !== null }));
    for (const p of pages) {
      if (sel === null) op.addInput(p);
      else {
        const rows = Int32Array.from({ length: n }, (_, i) => i).filter(sel);
        expect(op.addSelected(p, rows, rows.length, identity, shapes)).toBeGreaterThanOrEqual(0);
      }
    }
    op.finish();
    const result = new Map<string, (number | null)[]>();
    for (const out of outputs) {
      const keys = key < 0 ? new Array<string>(out.length).fill('') : key === 0 ? stringValues(out.columns[0]) : [...numericValues(out.columns[0])].map(String);
      keys.forEach((k, r) =>
        result.set(
          k,
          out.columns.slice(key < 0 ? 0 : 1).map((c) => (nullFlags(c)?.[r] === 1 ? null : numericValues(c)[r])),
        ),
      );
    }
    return result;
  }

  const close = (a: Map<string, (number | null)[]>, b: Map<string, (number | null)[]>): void => {
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    for (const [k, row] of a) row.forEach((v, j) => (v === null ? expect(b.get(k)?.[j]).toBeNull() : expect(b.get(k)?.[j]).toBeCloseTo(v, 6)));
  };

  it('groups small dictionary keys by code, across pages with different dictionaries', () => {
    const d1 = columnFromStrings(VARCHAR, ['x', 'y', 'z'], 3);
    const d2 = columnFromStrings(VARCHAR, ['z', 'x', 'y'], 3);
    const pages = [page(d1, 0), page(d2, 1), page(d1, 2)];
    close(expected(pages, 0, null), run(0, pages, null));
  });

  it('groups other keys by hash, and aggregates only the selected rows of a filtered page', () => {
    const d1 = columnFromStrings(VARCHAR, ['x', 'y', 'z'], 3);
    const pages = [page(d1, 0), page(d1, 5)];
    close(expected(pages, 1, null), run(1, pages, null));
    const odd = (i: number): boolean => i % 4 === 1 || i % 7 === 0;
    close(expected(pages, 1, odd), run(1, pages, odd));
    close(expected(pages, 0, odd), run(0, pages, odd));
  });

  it('a global aggregation sums in locals per page and adds them up across pages, selected or not', () => {
    const d1 = columnFromStrings(VARCHAR, ['x', 'y', 'z'], 3);
    const pages = [page(d1, 0), page(d1, 3), page(d1, 7)];
    close(expected(pages, -1, null), run(-1, pages, null));
    const some = (i: number): boolean => i % 3 === 2 || i % 11 === 0;
    close(expected(pages, -1, some), run(-1, pages, some));
  });

  it('reuses a filtered kernel from page to page only while shapes and dictionary sizes stay the same', () => {
    const specs = [groupSpec('count_star', null, null, BIGINT), groupSpec('sum', 2, DOUBLE, DOUBLE)];
    const outputs: Page[] = [];
    const op = new HashAggregateOperator(1, 'single', [0], specs, types, (p) => outputs.push(p));
    const identity = types.map((type, index): Expr => ({ kind: 'column', index, type }));
    const positive = (i: number, values: Float64Array | readonly number[]): boolean => values[i] > 0;
    const predicate: Expr = { kind: 'call', name: '$gt', args: [identity[2], { kind: 'literal', value: 0, type: DOUBLE }], type: BOOLEAN };
    const shapesOf = (p: Page) => p.columns.map((c) => ({ kind: c.kind, type: c.type, nullable: c.validity !== null }));
    const three = columnFromStrings(VARCHAR, ['x', 'y', 'z'], 3);
    const four = columnFromStrings(VARCHAR, ['w', 'x', 'y', 'z'], 4);
    const withNulls = (p: Page): Page => ({ ...p, columns: p.columns.map((c, k) => (k === 2 ? columnFromNumbers(DOUBLE, [...numericValues(c)], Array.from({ length: n }, (_, i) => (i % 9 === 0 ? 1 : 0)), n) : c)) });
    // Four keys on the last page: a kernel reused from a three-key page would add code 3 elsewhere.
    const last = page(four, 0);
    const pages = [page(three, 0), page(three, 4), withNulls(page(three, 1)), { ...last, columns: [dictionaryColumn(VARCHAR, Int32Array.from({ length: n }, (_, i) => i % 4), four as VarcharColumn), ...last.columns.slice(1)] }];
    const want = new Map<string, [number, number]>();
    for (const p of pages) {
      const keys = stringValues(p.columns[0]);
      const values = numericValues(p.columns[2]);
      const nulls = nullFlags(p.columns[2]);
      const rows: number[] = [];
      for (let i = 0; i < n; i++) {
        if (nulls?.[i] === 1 || !positive(i, values)) continue;
        rows.push(i);
        const g = want.get(keys[i]) ?? [0, 0];
        want.set(keys[i], [g[0] + 1, g[1] + values[i]]);
      }
      const done = op.addFiltered(p, predicate, identity, shapesOf(p));
      if (p === pages[2]) expect(done).toBeNull(); // a NULLable argument: no fused filtered kernel
      else expect(done?.kept).toBe(rows.length);
      if (done === null) op.addSelected(p, Int32Array.from(rows), rows.length, identity, shapesOf(p));
    }
    op.finish();
    const got = new Map<string, [number, number]>();
    for (const out of outputs) {
      const keys = stringValues(out.columns[0]);
      const [count, sum] = [numericValues(out.columns[1]), numericValues(out.columns[2])];
      keys.forEach((k, r) => got.set(k, [count[r], sum[r]]));
    }
    expect([...got.keys()].sort()).toEqual(['w', 'x', 'y', 'z']);
    for (const [k, [count, sum]] of want) {
      expect(got.get(k)?.[0]).toBe(count);
      expect(got.get(k)?.[1]).toBeCloseTo(sum, 6);
    }
  });

  it('leaves FILTER and DISTINCT aggregates to the per-aggregate path', () => {
    const op = new HashAggregateOperator(1, 'single', [0], [{ ...aggregates[2], distinct: true }], types, () => undefined);
    const p = page(columnFromStrings(VARCHAR, ['x', 'y', 'z'], 3), 0);
    const identity = types.map((type, index): Expr => ({ kind: 'column', index, type }));
    expect(op.addSelected(p, null, n, identity, [])).toBe(-1);
  });
});

describe('covariance family states', () => {
  const ys = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3];
  const xs = [2, 7, 1, 8, 2, 8, 1, 8, 2, 8];
  const groups = Int32Array.from(ys, () => 0);
  const y = columnFromNumbers(DOUBLE, ys, null, ys.length);
  const x = columnFromNumbers(DOUBLE, xs, Uint8Array.from(xs, (_, i) => (i === 4 ? 1 : 0)), xs.length);
  for (const name of ['covar_samp', 'covar_pop', 'corr', 'regr_slope', 'regr_intercept'] as const) {
    it(`${name}: rows one by one, row states merged, and partial states merged all agree`, () => {
      const spec: AggregateSpec = { name, args: [0, 1], argType: DOUBLE, filter: null, distinct: false, type: DOUBLE };
      const direct = createAccumulator(spec, false);
      direct.update(groups, ys.length, [y, x], null, 1);
      const viaRows = createAccumulator(spec, false);
      viaRows.merge(groups, ys.length, rowStates(spec, [y, x], null, ys.length), 1);
      const halves = [0, 5].map((from) => {
        const part = createAccumulator(spec, false);
        const slice = (c: typeof y): typeof y => columnFromNumbers(DOUBLE, numericValues(c).slice(from, from + 5), nullFlags(c)?.slice(from, from + 5) ?? null, 5);
        part.update(groups.subarray(0, 5), 5, [slice(y), slice(x)], null, 1);
        return part.intermediate(1);
      });
      const viaPartials = createAccumulator(spec, false);
      for (const states of halves) viaPartials.merge(Int32Array.of(0), 1, states, 1);
      const expected = numericValues(direct.final(1))[0]!;
      expect(Number.isFinite(expected)).toBe(true);
      expect(numericValues(viaRows.final(1))[0]).toBeCloseTo(expected, 10);
      expect(numericValues(viaPartials.final(1))[0]).toBeCloseTo(expected, 10);
    });
  }
});
