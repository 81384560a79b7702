// The two-rows-at-a-time loop of a one-group filtered aggregation (Q6): the predicate and the
// arguments over 128-bit vectors of two doubles, a rejected row's lane masked to +0 by its bits.
// Sums then add in two lanes instead of one chain (a different order than the row loop: the same
// sum up to rounding). The row loop after it takes the odd last row.

import type { Expr } from '../../sql/ir.js';
import { expressionEmitter, vectorLanes, type ConstantSpill, type RowContext } from './wasm-expressions.js';
import { FunctionBody, Op, Simd, V128, WasmUnsupported } from './wasm-module.js';

/** The row index (`i`: 0 on entry; on exit, the first row the loop did not do) and the row count's parameter. */
export interface PairLoopContext extends RowContext {
  readonly n: number;
  /** Where the loop's constant vectors go (see vectorLanes). */
  readonly spill: ConstantSpill;
}

/** The pair loop's v128 locals (see emitPairLoop) and the bytes its constants took of the spill. */
export interface PairLoop {
  readonly count: number;
  readonly sums: number[];
  readonly spilledBytes: number;
}

/**
 * Emits the pair loop; returns its v128 locals: the kept-row count (two i64 lanes) and each
 * argument's sum (two f64 lanes). Throws WasmUnsupported, with nothing emitted, for an expression
 * it has no vector form of.
 */
export function emitPairLoop(ctx: PairLoopContext, predicate: Expr, args: readonly Expr[]): PairLoop {
  const { f } = ctx;
  const start = f.code.length;
  try {
    return emit(ctx, predicate, args);
  } catch (e) {
    if (e instanceof WasmUnsupported) f.take(start);
    throw e;
  }
}

function emit(ctx: PairLoopContext, predicate: Expr, args: readonly Expr[]): PairLoop {
  const { f, i, n } = ctx;
  // Literals become vectors once, before the loop: the prelude is inserted where the loop starts.
  const prelude = new FunctionBody([]);
  const lanes = vectorLanes(f, prelude, ctx.spill);
  const { number, truth } = expressionEmitter(ctx, lanes);

  const count = f.local(V128);
  const sums = args.map(() => f.local(V128));
  const mask = f.local(V128);
  f.i32(0).set(i);
  const loopStart = f.code.length;
  f.block().loop();
  // Until fewer than two rows are left.
  f.get(i).i32(1).op(Op.i32Add).get(n).op(Op.i32GeU).brIf(1);
  truth(predicate);
  f.set(mask);
  // A kept lane's mask is -1: subtracting it counts the row.
  f.get(count).get(mask).simd(Simd.i64x2Sub).set(count);
  args.forEach((arg, k) => {
    f.get(sums[k]);
    number(arg);
    f.get(mask).simd(Simd.v128And).simd(Simd.f64x2Add).set(sums[k]);
  });
  f.get(i).i32(2).op(Op.i32Add).set(i).br(0);
  f.end().end();
  f.insert(loopStart, prelude.code);
  return { count, sums, spilledBytes: lanes.spilledBytes() };
}
