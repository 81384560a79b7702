// The column arena and the WebAssembly form of the filtered fused aggregation: columns allocated in
// the arena are found there from any buffer object, and the wasm kernel adds exactly what the JS
// kernel adds (NaN, infinities and -0 included), declining what it does not compile and any page
// whose columns lie outside the arena. One group's sums go two rows at a time in two lanes (a
// different order of additions): equal up to rounding there.

import { afterEach, describe, expect, it } from 'vitest';
import { allocArena, arenaAddress, createArena, installArena } from '../src/data/arena.js';
import { allocShared, type Column } from '../src/data/page.js';
import { BOOLEAN, DATE, DOUBLE, INTEGER, VARCHAR, type SqlType } from '../src/data/types.js';
import { compileFilteredAggregateUpdate, type AggregateUpdateOp } from '../src/exec/compile/aggregate-kernels.js';
import { compileFilter } from '../src/exec/compile/compile.js';
import { compileWasmFilter } from '../src/exec/compile/wasm-filter.js';
import type { ColumnShape } from '../src/exec/compile/emit.js';
import { compileWasmFilteredAggregate } from '../src/exec/compile/wasm-aggregate.js';
import { setWasmKernels } from '../src/exec/compile/wasm-kernels.js';
import type { Expr } from '../src/sql/ir.js';

const col = (index: number, type: SqlType): Expr => ({ kind: 'column', index, type });
const lit = (value: number, type: SqlType): Expr => ({ kind: 'literal', value, type });
const call = (name: string, type: SqlType, ...args: Expr[]): Expr => ({ kind: 'call', name, args, type });
const cmp = (name: string, a: Expr, b: Expr): Expr => call(name, BOOLEAN, a, b);

afterEach(() => {
  installArena(null);
  setWasmKernels(true);
});

describe('column arena', () => {
  it('allocates zeroed, aligned, disjoint views that it recognises through any buffer object', () => {
    installArena(createArena());
    const a = allocArena(Float64Array, 1000);
    const b = allocArena(Int32Array, 3);
    const c = allocArena(Uint8Array, 1);
    for (const v of [a, b, c]) {
      expect(arenaAddress(v)).toBe(v.byteOffset);
      expect(v.byteOffset % 64).toBe(0);
      expect([...v].every((x) => x === 0)).toBe(true);
    }
    expect(b.byteOffset).toBeGreaterThanOrEqual(a.byteOffset + a.byteLength);
    expect(c.byteOffset).toBeGreaterThanOrEqual(b.byteOffset + b.byteLength);
    // Another view of the same memory (as a page cloned to another thread has) is recognised too.
    const other = new Float64Array(structuredClone(a.buffer as SharedArrayBuffer), a.byteOffset, a.length);
    other[3] = 7;
    expect(a[3]).toBe(7);
    expect(arenaAddress(other)).toBe(a.byteOffset);
    // Ordinary buffers are not the arena.
    expect(arenaAddress(allocShared(Float64Array, 10))).toBe(-1);
    expect(arenaAddress(new Float64Array(10))).toBe(-1);
  });

  it('grows the memory as allocations need it and falls back to SharedArrayBuffers when full', () => {
    installArena(createArena(4 * 65536));
    const first = allocArena(Float64Array, 20_000); // 160 KB: past the first 64 KiB page
    first[first.length - 1] = 1.5;
    expect(arenaAddress(first)).toBeGreaterThan(0);
    const second = allocArena(Float64Array, 20_000); // no room left in 256 KiB
    expect(arenaAddress(second)).toBe(-1);
    expect(second.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(second.length).toBe(20_000);
    // Small requests that still fit keep coming from the arena.
    expect(arenaAddress(allocArena(Int32Array, 16))).toBeGreaterThan(0);
  });

  it('without an arena, allocates on SharedArrayBuffers', () => {
    const v = allocArena(Int32Array, 5);
    expect(v.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(arenaAddress(v)).toBe(-1);
  });
});

const ROWS = 4099; // not a multiple of anything the kernels might unroll by
const n = ROWS;
const dictStrings = ['A', 'N', 'R'];

/** Columns: 0 date, 1 double (with NaN, ±Infinity, -0), 2 double, 3 integer, 4 dictionary (3 values), 5 dictionary (2 values). */
function makeColumns(alloc: typeof allocArena, n = ROWS): Column[] {
  const dates = alloc(Int32Array, n);
  const x = alloc(Float64Array, n);
  const y = alloc(Float64Array, n);
  const ints = alloc(Int32Array, n);
  const k0 = alloc(Int32Array, n);
  const k1 = alloc(Int32Array, n);
  for (let i = 0; i < n; i++) {
    dates[i] = 8000 + ((i * 7919) % 1500);
    x[i] = i % 97 === 0 ? NaN : i % 89 === 0 ? -0 : i === 500 ? Infinity : i === 501 ? -Infinity : ((i * 104729) % 1000) / 100 - 5;
    y[i] = ((i * 31) % 101) / 7;
    ints[i] = ((i * 13) % 200) - 100;
    k0[i] = (i * 7) % 3;
    k1[i] = (i >> 4) % 2;
  }
  const dict = (indices: Int32Array, size: number): Column => ({ kind: 'dict', type: VARCHAR, length: n, validity: null, indices, dictionary: dictStrings.slice(0, size) }) as unknown as Column;
  return [
    { kind: 'fixed', type: DATE, length: n, validity: null, values: dates },
    { kind: 'fixed', type: DOUBLE, length: n, validity: null, values: x },
    { kind: 'fixed', type: DOUBLE, length: n, validity: null, values: y },
    { kind: 'fixed', type: INTEGER, length: n, validity: null, values: ints },
    dict(k0, 3),
    dict(k1, 2),
  ];
}

function shapesOf(columns: readonly Column[]): ColumnShape[] {
  return columns.map((c) => ({ kind: c.kind === 'dict' ? 'dict' : 'fixed', type: c.type, nullable: false }));
}

/** Equal, or (when `rounding`) both finite and equal up to the rounding of a different order of additions. */
function sameSum(a: number, b: number, rounding: boolean): boolean {
  if (Object.is(a, b)) return true;
  return rounding && Number.isFinite(a) && Number.isFinite(b) && Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b));
}

const OPS: AggregateUpdateOp[] = ['sum', 'sum', 'avg', 'count_star', 'sum'];
/** Q1-like arguments: x, x * (1 - y), y, count(*), the integer column. */
const ARGS: (Expr | null)[] = [col(1, DOUBLE), call('$multiply', DOUBLE, col(1, DOUBLE), call('$subtract', DOUBLE, lit(1, DOUBLE), col(2, DOUBLE))), col(2, DOUBLE), null, col(3, INTEGER)];

const PREDICATES: Record<string, Expr> = {
  'a date bound (Q1)': cmp('$le', col(0, DATE), lit(8900, DATE)),
  'a date range and double bounds (Q6)': {
    kind: 'and',
    type: BOOLEAN,
    args: [cmp('$ge', col(0, DATE), lit(8200, DATE)), cmp('$lt', col(0, DATE), lit(9100, DATE)), cmp('$ge', col(2, DOUBLE), lit(2, DOUBLE)), cmp('$le', col(2, DOUBLE), lit(9.5, DOUBLE)), cmp('$lt', col(1, DOUBLE), lit(3, DOUBLE))],
  },
  'OR, NOT, equality and an integer against a double': {
    kind: 'or',
    type: BOOLEAN,
    args: [{ kind: 'not', type: BOOLEAN, arg: cmp('$ne', col(1, DOUBLE), lit(0, DOUBLE)) }, cmp('$gt', col(3, INTEGER), lit(40.5, DOUBLE)), cmp('$eq', col(2, DOUBLE), col(1, DOUBLE))],
  },
  'a random half of the rows': cmp('$lt', col(2, DOUBLE), lit(7.2, DOUBLE)),
};

/** The block a kernel leaves after adding the page, and the rows it kept. */
function aggregate(columns: readonly Column[], predicate: Expr, keys: number[], wasm: boolean): { block: Float64Array; kept: number } {
  setWasmKernels(wasm);
  const sizes = keys.map((k) => (columns[k] as unknown as { dictionary: string[] }).dictionary.length);
  const kernel = compileFilteredAggregateUpdate(predicate, ARGS, OPS, shapesOf(columns), { kind: 'codes', columns: keys, sizes });
  if (kernel === null) throw new Error('no filtered kernel');
  const rows = sizes.reduce((a, b) => a * b, 1);
  const block = new Float64Array((rows + 1) * kernel.width);
  const kept = kernel.update(columns, n, block, rows);
  return { block: block.subarray(0, rows * kernel.width), kept };
}

describe('wasm filtered aggregation', () => {
  for (const [name, predicate] of Object.entries(PREDICATES)) {
    for (const keys of [[], [4, 5]]) {
      it(`adds exactly what the JS kernel adds: ${name}, ${keys.length === 0 ? 'one group' : 'grouped by two dictionaries'}`, () => {
        installArena(createArena());
        const columns = makeColumns(allocArena);
        const wasm = aggregate(columns, predicate, keys, true);
        const js = aggregate(columns, predicate, keys, false);
        expect(wasm.kept).toBe(js.kept);
        expect(wasm.kept).toBeGreaterThan(0);
        expect(wasm.kept).toBeLessThan(n);
        // Object.is: NaN equals NaN, -0 differs from 0. Counts (slot 0 of each row) are exact.
        const grouped = keys.length > 0;
        expect([...wasm.block].map((v, i) => sameSum(v, js.block[i], !grouped && i % 5 !== 0) || `slot ${i}: ${v} vs ${js.block[i]}`).filter((v) => v !== true)).toEqual([]);
      });
    }
  }

  it('compiles only what it can: the kernel exists for arena columns, and declines other shapes', () => {
    installArena(createArena());
    const columns = makeColumns(allocArena);
    const shapes = shapesOf(columns);
    const values = [{ slot: 1, arg: col(1, DOUBLE) }];
    expect(compileWasmFilteredAggregate('t1', PREDICATES['a date bound (Q1)'], values, shapes, [], [], 2)?.form).toBe('pairs');
    expect(compileWasmFilteredAggregate('t1g', PREDICATES['a date bound (Q1)'], values, shapes, [4, 5], [3, 2], 2)?.form).toBe('rows');
    // A nullable column, a dictionary column in a predicate, a function call: declined.
    const nullable = shapes.map((s, i) => (i === 1 ? { ...s, nullable: true } : s));
    expect(compileWasmFilteredAggregate('t2', PREDICATES['a date bound (Q1)'], values, nullable, [], [], 2)).toBeNull();
    expect(compileWasmFilteredAggregate('t3', cmp('$eq', col(4, VARCHAR), col(4, VARCHAR)), values, shapes, [], [], 2)).toBeNull();
    expect(compileWasmFilteredAggregate('t4', cmp('$lt', call('abs', DOUBLE, col(1, DOUBLE)), lit(1, DOUBLE)), values, shapes, [], [], 2)).toBeNull();
    // Without an arena in this thread there is no wasm kernel at all.
    installArena(null);
    expect(compileWasmFilteredAggregate('t5', PREDICATES['a date bound (Q1)'], values, shapes, [], [], 2)).toBeNull();
  });

  it('leaves a page whose columns are outside the arena to the JS kernel', () => {
    installArena(createArena());
    const inArena = makeColumns(allocArena);
    const outside = makeColumns((ctor, length) => allocShared(ctor, length));
    const predicate = PREDICATES['a date range and double bounds (Q6)'];
    const kernel = compileWasmFilteredAggregate('t6', predicate, [{ slot: 1, arg: col(1, DOUBLE) }], shapesOf(inArena), [4, 5], [3, 2], 2);
    expect(kernel).not.toBeNull();
    const block = new Float64Array(7 * 2);
    expect(kernel?.update(outside, n, block)).toBe(-1);
    expect([...block].every((v) => v === 0)).toBe(true);
    expect(kernel?.update(inArena, n, block)).toBeGreaterThan(0);
    // Through the public kernel the outside page still aggregates, in JS, to the same result.
    const viaArena = aggregate(inArena, predicate, [4, 5], true);
    const viaJs = aggregate(outside, predicate, [4, 5], true);
    expect(viaJs.kept).toBe(viaArena.kept);
    expect([...viaJs.block]).toEqual([...viaArena.block]);
  });
});

describe('wasm filter', () => {
  /** The rows a filter kernel selects from the columns, in wasm (arena columns) or JS. */
  const select = (columns: readonly Column[], predicate: Expr, wasm: boolean): number[] => {
    setWasmKernels(wasm);
    const rows = columns[0].length;
    const sel = new Int32Array(rows);
    const count = compileFilter(predicate, shapesOf(columns))(columns, rows, sel);
    return [...sel.subarray(0, count)];
  };

  it('selects exactly the rows the JS kernel selects, over chunk boundaries (NaN and -0 included)', () => {
    installArena(createArena());
    const columns = makeColumns(allocArena, 140_001); // two 65,536-row chunks and a rest
    expect(compileWasmFilter('f1', PREDICATES['a date bound (Q1)'], shapesOf(columns))).not.toBeNull();
    for (const [name, predicate] of Object.entries(PREDICATES)) {
      const wasm = select(columns, predicate, true);
      const js = select(columns, predicate, false);
      expect(wasm.length, name).toBe(js.length);
      expect(wasm.length, name).toBeGreaterThan(0);
      expect(wasm.length, name).toBeLessThan(140_001);
      expect(wasm, name).toEqual(js);
    }
  });

  it('leaves the scratch region zeroed for the aggregation kernels, and pages outside the arena to JS', () => {
    installArena(createArena());
    const columns = makeColumns(allocArena);
    const predicate = PREDICATES['a random half of the rows'];
    select(columns, predicate, true);
    // An aggregation after a filter in the same arena still adds exactly what JS adds.
    const wasm = aggregate(columns, PREDICATES['a date bound (Q1)'], [4, 5], true);
    const js = aggregate(columns, PREDICATES['a date bound (Q1)'], [4, 5], false);
    expect([...wasm.block]).toEqual([...js.block]);
    const outside = makeColumns((ctor, length) => allocShared(ctor, length));
    setWasmKernels(true);
    const kernel = compileWasmFilter('f2', predicate, shapesOf(outside));
    expect(kernel?.run(outside, n, new Int32Array(n))).toBe(-1);
    expect(select(outside, predicate, true)).toEqual(select(columns, predicate, false));
  });
});
