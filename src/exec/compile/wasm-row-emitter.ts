// Row-at-a-time expression code for wasm kernels: numbers as f64, predicates as i32 0/1, over the
// row in a local. One emitter per loop body: within it each column is loaded once and each
// repeated subexpression computed once (the body is straight-line code, so the first use
// dominates the others).

import type { Expr } from '../../sql/ir.js';
import type { ColumnLoad } from './wasm-kernels.js';
import { F64, I32, Op, WasmUnsupported, type FunctionBody } from './wasm-module.js';

export interface RowContext {
  readonly f: FunctionBody;
  /** The local holding the row index. */
  readonly i: number;
  readonly loads: ReadonlyMap<number, ColumnLoad>;
  /** The parameter holding each column's address. */
  readonly address: ReadonlyMap<number, number>;
}

export interface RowEmitter {
  /** Pushes the expression's value as an f64. */
  number(e: Expr): void;
  /** Pushes the predicate's value as an i32, 1 or 0 (AND/OR/NOT evaluate every operand). */
  truth(e: Expr): void;
  /** Pushes a column's value of the row, as an f64 or (an int32 column) as an i32. */
  column(index: number, as: ColumnLoad): void;
}

export const INT32_TYPES: ReadonlySet<string> = new Set(['integer', 'date']);

const COMPARE_F64: Record<string, number> = { $eq: Op.f64Eq, $ne: Op.f64Ne, $lt: Op.f64Lt, $le: Op.f64Le, $gt: Op.f64Gt, $ge: Op.f64Ge };
const COMPARE_I32: Record<string, number> = { $eq: Op.i32Eq, $ne: Op.i32Ne, $lt: Op.i32LtS, $le: Op.i32LeS, $gt: Op.i32GtS, $ge: Op.i32GeS };
const ARITHMETIC_F64: Record<string, number> = { $add: Op.f64Add, $subtract: Op.f64Sub, $multiply: Op.f64Mul, $divide: Op.f64Div };

/** Whether `e` compares an int32 column with an int32 literal (then compared as integers: no conversion per row). */
function int32Comparison(e: Expr, loads: ReadonlyMap<number, ColumnLoad>): e is Expr & { kind: 'call' } {
  if (e.kind !== 'call' || e.args.length !== 2 || COMPARE_I32[e.name] === undefined) return false;
  const [a, b] = e.args;
  return a.kind === 'column' && loads.get(a.index) === 'i32' && b.kind === 'literal' && typeof b.value === 'number' && b.value === (b.value | 0);
}

export function rowEmitter(ctx: RowContext): RowEmitter {
  const { f, i, loads } = ctx;
  const columnLocal = new Map<number, number>();
  const exprLocal = new Map<string, number>();
  const column = (index: number, as: ColumnLoad): void => {
    const load = loads.get(index) as ColumnLoad;
    let local = columnLocal.get(index);
    if (local === undefined) {
      local = f.local(load === 'f64' ? F64 : I32);
      columnLocal.set(index, local);
      f.get(ctx.address.get(index) as number).get(i).i32(load === 'f64' ? 3 : 2).op(Op.i32Shl).op(Op.i32Add);
      f.memory(load === 'f64' ? Op.f64Load : Op.i32Load, load === 'f64' ? 3 : 2).tee(local);
    } else f.get(local);
    if (as === 'f64' && load === 'i32') f.op(Op.f64ConvertI32S);
    else if (as !== load) throw new WasmUnsupported();
  };
  const number = (e: Expr): void => {
    switch (e.kind) {
      case 'column':
        column(e.index, 'f64');
        return;
      case 'literal':
        if (typeof e.value !== 'number' || !Number.isFinite(e.value) || e.type.id === 'decimal') throw new WasmUnsupported();
        f.f64(e.value);
        return;
      case 'call': {
        if (e.type.id !== 'double' || !e.args.every((a) => a.type.id === 'double' || INT32_TYPES.has(a.type.id))) throw new WasmUnsupported();
        const text = JSON.stringify(e);
        const known = exprLocal.get(text);
        if (known !== undefined) {
          f.get(known);
          return;
        }
        if (e.name === '$negate' && e.args.length === 1) {
          number(e.args[0]);
          f.op(Op.f64Neg);
        } else {
          const op = ARITHMETIC_F64[e.name];
          if (op === undefined || e.args.length !== 2) throw new WasmUnsupported();
          number(e.args[0]);
          number(e.args[1]);
          f.op(op);
        }
        const local = f.local(F64);
        exprLocal.set(text, local);
        f.tee(local);
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
          if (k > 0) f.op(e.kind === 'and' ? Op.i32And : Op.i32Or);
        });
        return;
      case 'not':
        truth(e.arg);
        f.op(Op.i32Eqz);
        return;
      case 'call': {
        if (e.args.length !== 2 || COMPARE_F64[e.name] === undefined) throw new WasmUnsupported();
        const [a, b] = e.args;
        if (int32Comparison(e, loads)) {
          column((a as { index: number }).index, 'i32');
          f.i32(b.kind === 'literal' ? (b.value as number) : 0).op(COMPARE_I32[e.name]);
          return;
        }
        number(a);
        number(b);
        f.op(COMPARE_F64[e.name]);
        return;
      }
      default:
        throw new WasmUnsupported();
    }
  };
  return { number, truth, column };
}
