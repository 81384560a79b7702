// The two-rows-at-a-time loop of a one-group filtered aggregation (Q6): the predicate and the
// arguments over 128-bit vectors of two doubles, a rejected row's lane masked to +0 by its bits.
// Sums then add in two lanes instead of one chain (a different order than the row loop: the same
// sum up to rounding). The row loop after it takes the odd last row.

import type { Expr } from '../../sql/ir.js';
import type { ColumnLoad } from './wasm-kernels.js';
import { FunctionBody, Op, Simd, V128, WasmUnsupported } from './wasm-module.js';


export interface PairLoopContext {
  readonly f: FunctionBody;
  /** The local holding the row index (0 on entry; on exit, the first row the loop did not do). */
  readonly i: number;
  /** The parameter holding the row count. */
  readonly n: number;
  readonly loads: ReadonlyMap<number, ColumnLoad>;
  /** The parameter holding each column's address. */
  readonly address: ReadonlyMap<number, number>;
}

const COMPARE_F64: Record<string, number> = { $eq: Simd.f64x2Eq, $ne: Simd.f64x2Ne, $lt: Simd.f64x2Lt, $le: Simd.f64x2Le, $gt: Simd.f64x2Gt, $ge: Simd.f64x2Ge };
const COMPARE_I32: Record<string, number> = { $eq: Simd.i32x4Eq, $ne: Simd.i32x4Ne, $lt: Simd.i32x4LtS, $le: Simd.i32x4LeS, $gt: Simd.i32x4GtS, $ge: Simd.i32x4GeS };
const ARITHMETIC_F64: Record<string, number> = { $add: Simd.f64x2Add, $subtract: Simd.f64x2Sub, $multiply: Simd.f64x2Mul, $divide: Simd.f64x2Div };

/**
 * Emits the pair loop; returns its v128 locals: the kept-row count (two i64 lanes) and each
 * argument's sum (two f64 lanes). Throws WasmUnsupported, with nothing emitted, for an expression
 * it has no vector form of.
 */
export function emitPairLoop(ctx: PairLoopContext, predicate: Expr, args: readonly Expr[]): { count: number; sums: number[] } {
  const { f } = ctx;
  const start = f.code.length;
  try {
    return emit(ctx, predicate, args);
  } catch (e) {
    if (e instanceof WasmUnsupported) f.take(start);
    throw e;
  }
}

function emit(ctx: PairLoopContext, predicate: Expr, args: readonly Expr[]): { count: number; sums: number[] } {
  const { f, i, n } = ctx;
  // Literals become vectors once, before the loop: the prelude is inserted where the loop starts.
  const prelude = new FunctionBody([]);
  const constants = new Map<string, number>();
  const constant = (kind: 'f64' | 'i32', value: number): void => {
    const key = `${kind}:${Object.is(value, -0) ? '-0' : value}`;
    let local = constants.get(key);
    if (local === undefined) {
      local = f.local(V128);
      constants.set(key, local);
      if (kind === 'f64') prelude.f64(value).simd(Simd.f64x2Splat);
      else prelude.i32(value).simd(Simd.i32x4Splat);
      prelude.set(local);
    }
    f.get(local);
  };
  // Per pair of rows: each column loaded once (as raw int32 lanes or as doubles), each repeated
  // subexpression computed once.
  const loaded = new Map<string, number>();
  const remember = (key: string, emitValue: () => void): void => {
    let local = loaded.get(key);
    if (local === undefined) {
      emitValue();
      local = f.local(V128);
      loaded.set(key, local);
      f.tee(local);
    } else f.get(local);
  };
  const address = (index: number, shift: number): void => {
    f.get(ctx.address.get(index) as number).get(i).i32(shift).op(Op.i32Shl).op(Op.i32Add);
  };
  const rawInt32 = (index: number): void =>
    remember(`i${index}`, () => {
      address(index, 2);
      f.simd(Simd.v128Load64Zero, { align: 2 });
    });
  const number = (e: Expr): void => {
    switch (e.kind) {
      case 'column':
        if (ctx.loads.get(e.index) === 'i32') {
          remember(`c${e.index}`, () => {
            rawInt32(e.index);
            f.simd(Simd.f64x2ConvertLowI32x4S);
          });
        } else {
          remember(`c${e.index}`, () => {
            address(e.index, 3);
            f.simd(Simd.v128Load, { align: 3 });
          });
        }
        return;
      case 'literal':
        constant('f64', e.value as number);
        return;
      case 'call': {
        remember(JSON.stringify(e), () => {
          if (e.name === '$negate' && e.args.length === 1) {
            number(e.args[0]);
            f.simd(Simd.f64x2Neg);
            return;
          }
          const op = ARITHMETIC_F64[e.name];
          if (op === undefined || e.args.length !== 2) throw new WasmUnsupported();
          number(e.args[0]);
          number(e.args[1]);
          f.simd(op);
        });
        return;
      }
      default:
        throw new WasmUnsupported();
    }
  };
  const truth = (e: Expr): void => {
    switch (e.kind) {
      case 'and':
      case 'or':
        e.args.forEach((a, k) => {
          truth(a);
          if (k > 0) f.simd(e.kind === 'and' ? Simd.v128And : Simd.v128Or);
        });
        return;
      case 'not':
        truth(e.arg);
        f.simd(Simd.v128Not);
        return;
      case 'call': {
        if (e.args.length !== 2 || COMPARE_F64[e.name] === undefined) throw new WasmUnsupported();
        const [a, b] = e.args;
        if (a.kind === 'column' && ctx.loads.get(a.index) === 'i32' && b.kind === 'literal' && typeof b.value === 'number' && b.value === (b.value | 0)) {
          // Four int32 lanes compared, the two rows' results widened to 64-bit lane masks.
          rawInt32(a.index);
          constant('i32', b.value);
          f.simd(COMPARE_I32[e.name]).simd(Simd.i64x2ExtendLowI32x4S);
          return;
        }
        number(a);
        number(b);
        f.simd(COMPARE_F64[e.name]);
        return;
      }
      default:
        throw new WasmUnsupported();
    }
  };

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
  return { count, sums };
}
