// Filter kernels: comparisons over NOT NULL numeric columns run branch-free and select exactly the
// rows the short-circuit form selects; anything else keeps the short-circuit form.

import { describe, expect, it } from 'vitest';
import { BOOLEAN, DATE, DOUBLE, type SqlType } from '../src/data/types.js';
import { compileFilter } from '../src/exec/compile/compile.js';
import type { ColumnShape } from '../src/exec/compile/emit.js';
import type { Column } from '../src/data/page.js';
import type { Expr } from '../src/sql/ir.js';

const col = (index: number, type: SqlType): Expr => ({ kind: 'column', index, type });
const lit = (value: number, type: SqlType): Expr => ({ kind: 'literal', value, type });
const cmp = (name: string, a: Expr, b: Expr): Expr => ({ kind: 'call', name, args: [a, b], type: BOOLEAN });

const n = 5000;
const dates = new Int32Array(n);
const doubles = new Float64Array(n);
for (let i = 0; i < n; i++) {
  dates[i] = 8000 + ((i * 7919) % 1500);
  doubles[i] = i % 97 === 0 ? NaN : i % 89 === 0 ? -0 : ((i * 104729) % 1000) / 100 - 5;
}
const columns: Column[] = [
  { kind: 'fixed', type: DATE, length: n, validity: null, values: dates },
  { kind: 'fixed', type: DOUBLE, length: n, validity: null, values: doubles },
];
const shapes: ColumnShape[] = columns.map((c) => ({ kind: 'fixed', type: c.type, nullable: false }));

/** The rows a predicate selects, evaluated directly in JS. */
function expected(test: (d: number, x: number) => boolean): number[] {
  const rows: number[] = [];
  for (let i = 0; i < n; i++) if (test(dates[i], doubles[i])) rows.push(i);
  return rows;
}

function selected(predicate: Expr, s: ColumnShape[] = shapes): { rows: number[]; source: string } {
  const kernel = compileFilter(predicate, s);
  const sel = new Int32Array(n);
  const count = kernel(columns, n, sel);
  return { rows: [...sel.subarray(0, count)], source: kernel.source };
}

describe('filter kernels', () => {
  it('AND/OR/NOT of comparisons select exactly the matching rows (NaN and -0 included), branch-free', () => {
    const p: Expr = {
      kind: 'or',
      type: BOOLEAN,
      args: [
        { kind: 'and', type: BOOLEAN, args: [cmp('$ge', col(0, DATE), lit(8500, DATE)), cmp('$lt', col(0, DATE), lit(9000, DATE)), cmp('$le', col(1, DOUBLE), lit(0, DOUBLE))] },
        { kind: 'not', type: BOOLEAN, arg: cmp('$ne', col(1, DOUBLE), lit(2.5, DOUBLE)) },
        cmp('$eq', col(1, DOUBLE), lit(0, DOUBLE)),
      ],
    };
    const { rows, source } = selected(p);
    expect(source).toMatch(/count \+= /u);
    expect(rows).toEqual(expected((d, x) => (d >= 8500 && d < 9000 && x <= 0) || !(x !== 2.5) || x === 0));
    expect(rows.length).toBeGreaterThan(100);
  });

  it('a lower and an upper bound on one integer column are one range test, exact at both edges', () => {
    // Every comparison form, the literal on either side; bounds at the data's edges and beyond.
    const cases: [Expr, Expr, (d: number) => boolean][] = [
      [cmp('$ge', col(0, DATE), lit(8500, DATE)), cmp('$lt', col(0, DATE), lit(9000, DATE)), (d) => d >= 8500 && d < 9000],
      [cmp('$gt', col(0, DATE), lit(8500, DATE)), cmp('$le', col(0, DATE), lit(9000, DATE)), (d) => d > 8500 && d <= 9000],
      [cmp('$le', lit(8000, DATE), col(0, DATE)), cmp('$gt', lit(8001, DATE), col(0, DATE)), (d) => d >= 8000 && d < 8001],
      [cmp('$lt', col(0, DATE), lit(9499, DATE)), cmp('$ge', col(0, DATE), lit(-5, DATE)), (d) => d < 9499 && d >= -5],
      [cmp('$ge', col(0, DATE), lit(9000, DATE)), cmp('$lt', col(0, DATE), lit(8500, DATE)), () => false],
    ];
    for (const [a, b, test] of cases) {
      const { rows, source } = selected({ kind: 'and', type: BOOLEAN, args: [a, b, cmp('$lt', col(1, DOUBLE), lit(4, DOUBLE))] });
      expect(source).toMatch(/>>> 0\) < |count \+= \(0 &/u);
      expect(rows).toEqual(expected((d, x) => test(d) && x < 4));
    }
    // Bounds too wide for one unsigned subtraction keep two comparisons.
    const wide = selected({ kind: 'and', type: BOOLEAN, args: [cmp('$ge', col(0, DATE), lit(-(2 ** 31), DATE)), cmp('$lt', col(0, DATE), lit(2 ** 31 - 1, DATE))] });
    expect(wide.source).not.toMatch(/>>> 0/u);
    expect(wide.rows).toHaveLength(n);
  });

  it('a nullable column keeps the short-circuit kernel and its NULL semantics', () => {
    const nullable = shapes.map((s, i) => (i === 1 ? { ...s, nullable: true } : s));
    const { rows, source } = selected(cmp('$gt', col(1, DOUBLE), lit(1, DOUBLE)), nullable);
    expect(source).not.toMatch(/count \+= /u);
    expect(rows).toEqual(expected((_, x) => x > 1));
  });
});
