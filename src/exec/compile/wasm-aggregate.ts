// The filtered fused aggregation (aggregate-kernels.ts: compileFilteredAggregateUpdate) as a
// WebAssembly function, for pages whose columns lie in the column arena (data/arena.ts). V8's JS
// code re-checks every typed array's map, base and length on every row of a loop; compiled wasm
// loads straight from memory, which brings TPC-H Q1's kernel from about 10 to 4.4 ns a row (the
// C kernel of native-bench: 4.0). Same arithmetic, same order, same block layout as the JS kernel;
// it declines (null) anything but NOT NULL double/integer/date columns, numeric literals, + - * /
// on doubles, comparisons and AND/OR/NOT, keyed by small dictionaries' indices or by nothing.

import type { Column } from '../../data/page.js';
import type { Expr } from '../../sql/ir.js';
import type { ColumnShape } from './emit.js';
import { arenaKernel, columnAddresses, scratchBlock, type ColumnLoad } from './wasm-kernels.js';
import { emitPairLoop, type PairLoop } from './wasm-pair-loop.js';
import { expressionEmitter, noteColumns, SCALAR_LANES } from './wasm-expressions.js';
import { F64, FunctionBody, I32, I64, instantiateKernel, Op, Simd, WasmUnsupported, type ValueType } from './wasm-module.js';

/** A value slot of the block and the argument added into it. */
export interface WasmValueSlot {
  readonly slot: number;
  readonly arg: Expr;
}

export interface WasmFilteredAggregate {
  /** How rows are visited: one at a time, or two at a time (one group, every expression with a vector form). */
  readonly form: 'rows' | 'pairs';
  /**
   * Adds the rows of `cols` the predicate keeps into `block` (block rows by code, `width` slots
   * each) and returns how many it kept; -1, with nothing done, when a column is not in this
   * thread's arena.
   */
  update(cols: readonly Column[], n: number, block: Float64Array): number;
}


/**
 * The wasm form of a filtered fused aggregation, or null when this thread has no arena or the
 * expressions are outside what it compiles. `codeColumns`/`sizes` are the dictionary key columns
 * (none: one group); `width` the block row's slots, slot 0 counting the rows kept.
 */
export function compileWasmFilteredAggregate(
  key: string,
  predicate: Expr,
  values: readonly WasmValueSlot[],
  shapes: readonly ColumnShape[],
  codeColumns: readonly number[],
  sizes: readonly number[],
  width: number,
): WasmFilteredAggregate | null {
  return arenaKernel(`AF|${key}`, (memory) => build(memory, { predicate, values, shapes, codeColumns, sizes, width }));
}

interface AggregateSpec {
  readonly predicate: Expr;
  readonly values: readonly WasmValueSlot[];
  readonly shapes: readonly ColumnShape[];
  readonly codeColumns: readonly number[];
  readonly sizes: readonly number[];
  readonly width: number;
}

function build(memory: WebAssembly.Memory, { predicate, values, shapes, codeColumns, sizes, width }: AggregateSpec): WasmFilteredAggregate {
  const used = new Map<number, ColumnLoad>();
  noteColumns(predicate, shapes, used);
  for (const v of values) noteColumns(v.arg, shapes, used);
  for (const c of codeColumns) {
    const shape = shapes[c];
    if (shape === undefined || shape.kind !== 'dict' || shape.nullable) throw new WasmUnsupported();
    used.set(c, 'i32');
  }
  const columns = [...used.keys()];
  // Parameters: n, the block's address, then each column's.
  const params: ValueType[] = [I32, I32, ...columns.map((): ValueType => I32)];
  const f = new FunctionBody(params);
  const N = 0;
  const BLK = 1;
  const addressParam = new Map(columns.map((c, k) => [c, 2 + k]));
  const i = f.local(I32);
  const keep = f.local(I32);
  const groups = codeColumns.length;
  const rows = sizes.reduce((a, b) => a * b, 1);
  const rowBytes = width * 8;
  const trashOffset = rows * rowBytes;

  const row = expressionEmitter({ f, i, loads: used, address: addressParam }, SCALAR_LANES);
  const { number, truth } = row;

  // Grouped: a row adds into its code's block row, a rejected row into the trash row after them.
  // One group: sums in locals (masked by the predicate), written into the block once.
  const sums = groups === 0 ? values.map(() => f.local(F64)) : [];
  const kept = groups === 0 ? f.local(I32) : -1;
  const blockRow = f.local(I32);
  // One group: rows two at a time first, when every expression has a vector form.
  let pairs: PairLoop | null = null;
  if (groups === 0) {
    try {
      pairs = emitPairLoop({ f, i, n: N, loads: used, address: addressParam, spill: { address: BLK, offset: width * 8 } }, predicate, values.map((v) => v.arg));
    } catch (e) {
      if (!(e instanceof WasmUnsupported)) throw e;
    }
  }
  if (pairs === null) f.i32(0).set(i);
  f.block().loop();
  f.get(i).get(N).op(Op.i32GeU).brIf(1);
  truth(predicate);
  f.set(keep);
  const argLocals = values.map((v) => {
    number(v.arg);
    const local = f.local(F64);
    f.set(local);
    return local;
  });
  if (groups === 0) {
    f.get(kept).get(keep).op(Op.i32Add).set(kept);
    // A rejected row adds +0: its argument's bits and-ed with 0 (all ones when kept). A select
    // compiles to a branch for doubles, mispredicted half the time on a random predicate.
    const mask = f.local(I64);
    f.i32(0).get(keep).op(Op.i32Sub).op(Op.i64ExtendI32S).set(mask);
    values.forEach((_, k) => {
      f.get(sums[k]).get(argLocals[k]).op(Op.i64ReinterpretF64).get(mask).op(Op.i64And).op(Op.f64ReinterpretI64).op(Op.f64Add).set(sums[k]);
    });
  } else {
    // Horner's rule over the dictionary indices, as the JS kernel's codeOf.
    codeColumns.forEach((c, k) => {
      if (k > 0) f.i32(sizes[k]).op(Op.i32Mul);
      row.raw(c);
      if (k > 0) f.op(Op.i32Add);
    });
    f.i32(rowBytes).op(Op.i32Mul).i32(trashOffset).get(keep).op(Op.select).get(BLK).op(Op.i32Add).set(blockRow);
    const add = (slot: number, value: () => void): void => {
      f.get(blockRow).get(blockRow).memory(Op.f64Load, 3, slot * 8);
      value();
      f.op(Op.f64Add).memory(Op.f64Store, 3, slot * 8);
    };
    add(0, () => f.f64(1));
    values.forEach((v, k) => add(v.slot, () => f.get(argLocals[k])));
  }
  f.get(i).i32(1).op(Op.i32Add).set(i).br(0);
  f.end().end();
  if (groups === 0) {
    if (pairs !== null) {
      // The pair loop's lanes join the row loop's totals.
      const { count, sums: laneSums } = pairs;
      f.get(kept).get(count).simd(Simd.i64x2ExtractLane, undefined, 0).get(count).simd(Simd.i64x2ExtractLane, undefined, 1).op(Op.i64Add).op(Op.i32WrapI64).op(Op.i32Add).set(kept);
      values.forEach((_, k) => {
        f.get(sums[k]).get(laneSums[k]).simd(Simd.f64x2ExtractLane, undefined, 0).get(laneSums[k]).simd(Simd.f64x2ExtractLane, undefined, 1).op(Op.f64Add).op(Op.f64Add).set(sums[k]);
      });
    }
    f.get(BLK).get(kept).op(Op.f64ConvertI32U).memory(Op.f64Store, 3, 0);
    values.forEach((v, k) => f.get(BLK).get(sums[k]).memory(Op.f64Store, 3, v.slot * 8));
  }
  const run = instantiateKernel<(...args: number[]) => void>(memory, f);

  // One group: the pair loop's constants after the block's row.
  const blockSlots = (groups === 0 ? 1 : rows + 1) * width + (pairs?.spilledBytes ?? 0) / 8;
  const args: number[] = new Array<number>(2 + columns.length).fill(0);
  return {
    form: pairs !== null ? 'pairs' : 'rows',
    update(cols, n, block) {
      if (!columnAddresses(cols, columns, used, n, args, 2)) return -1;
      const scratch = scratchBlock(memory, blockSlots);
      if (scratch === null) return -1;
      args[0] = n;
      args[1] = scratch.byteOffset;
      run(...args);
      let keptRows: number;
      if (groups === 0) {
        keptRows = scratch[0];
        for (let s = 0; s < width; s++) block[s] += scratch[s];
      } else {
        keptRows = n - scratch[rows * width];
        for (let s = 0; s < rows * width; s++) if (scratch[s] !== 0) block[s] += scratch[s];
      }
      scratch.fill(0, 0, blockSlots);
      return keptRows;
    },
  };
}
