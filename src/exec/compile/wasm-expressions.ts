// Expression code for wasm kernels, one tree walk over two instruction sets: a row at a time
// (numbers as f64, predicates as i32 0/1) or two rows at a time (numbers as f64x2, predicates as
// 64-bit lane masks). One emitter per loop body: within it each column is loaded once and each
// repeated subexpression computed once (the body is straight-line code, so the first use
// dominates the others). The subset: NOT NULL double, integer and date columns, finite numeric
// literals, + - * / and negation on doubles, comparisons, AND/OR/NOT.

import type { Expr } from '../../sql/ir.js';
import type { ColumnShape } from './emit.js';
import type { ColumnLoad } from './wasm-kernels.js';
import { F64, I32, Op, Simd, V128, WasmUnsupported, type FunctionBody, type ValueType } from './wasm-module.js';

const INT32_TYPES: ReadonlySet<string> = new Set(['integer', 'date']);
const COMPARISONS = ['$eq', '$ne', '$lt', '$le', '$gt', '$ge'] as const;
const ARITHMETIC = ['$add', '$subtract', '$multiply', '$divide'] as const;

/** How many rows an instruction set works on at once, and the instructions it uses. */
export interface Lanes {
  /** The local type of a number and of an int32 column's raw value(s). */
  readonly number: ValueType;
  readonly raw: ValueType;
  /** Loads the number(s) / raw int32(s) at the address on the stack. */
  loadNumber(f: FunctionBody): void;
  loadRaw(f: FunctionBody): void;
  rawToNumber(f: FunctionBody): void;
  /** Pushes a literal as a number or as raw int32(s). */
  constant(f: FunctionBody, kind: 'f64' | 'i32', value: number): void;
  arithmetic(f: FunctionBody, name: (typeof ARITHMETIC)[number]): void;
  negate(f: FunctionBody): void;
  /** Compares two numbers / two raw int32 values, leaving the truth in this set's form. */
  compareNumbers(f: FunctionBody, name: (typeof COMPARISONS)[number]): void;
  compareRaw(f: FunctionBody, name: (typeof COMPARISONS)[number]): void;
  combine(f: FunctionBody, kind: 'and' | 'or'): void;
  negateTruth(f: FunctionBody): void;
}

const byName = <T>(entries: Record<(typeof COMPARISONS)[number], T>): Record<string, T> => entries;

const SCALAR_COMPARE_F64 = byName({ $eq: Op.f64Eq, $ne: Op.f64Ne, $lt: Op.f64Lt, $le: Op.f64Le, $gt: Op.f64Gt, $ge: Op.f64Ge });
const SCALAR_COMPARE_I32 = byName({ $eq: Op.i32Eq, $ne: Op.i32Ne, $lt: Op.i32LtS, $le: Op.i32LeS, $gt: Op.i32GtS, $ge: Op.i32GeS });
const SCALAR_ARITHMETIC: Record<string, number> = { $add: Op.f64Add, $subtract: Op.f64Sub, $multiply: Op.f64Mul, $divide: Op.f64Div };

/** A row at a time: truth is an i32 0/1. */
export const SCALAR_LANES: Lanes = {
  number: F64,
  raw: I32,
  loadNumber: (f) => f.memory(Op.f64Load, 3),
  loadRaw: (f) => f.memory(Op.i32Load, 2),
  rawToNumber: (f) => f.op(Op.f64ConvertI32S),
  constant: (f, kind, value) => (kind === 'f64' ? f.f64(value) : f.i32(value)),
  arithmetic: (f, name) => f.op(SCALAR_ARITHMETIC[name]),
  negate: (f) => f.op(Op.f64Neg),
  compareNumbers: (f, name) => f.op(SCALAR_COMPARE_F64[name]),
  compareRaw: (f, name) => f.op(SCALAR_COMPARE_I32[name]),
  combine: (f, kind) => f.op(kind === 'and' ? Op.i32And : Op.i32Or),
  negateTruth: (f) => f.op(Op.i32Eqz),
};

const VECTOR_COMPARE_F64 = byName({ $eq: Simd.f64x2Eq, $ne: Simd.f64x2Ne, $lt: Simd.f64x2Lt, $le: Simd.f64x2Le, $gt: Simd.f64x2Gt, $ge: Simd.f64x2Ge });
const VECTOR_COMPARE_I32 = byName({ $eq: Simd.i32x4Eq, $ne: Simd.i32x4Ne, $lt: Simd.i32x4LtS, $le: Simd.i32x4LeS, $gt: Simd.i32x4GtS, $ge: Simd.i32x4GeS });
const VECTOR_ARITHMETIC: Record<string, number> = { $add: Simd.f64x2Add, $subtract: Simd.f64x2Sub, $multiply: Simd.f64x2Mul, $divide: Simd.f64x2Div };

/**
 * Two rows at a time (f64x2; truth a 64-bit lane mask). Literals become vectors once, in
 * `prelude` (code the caller places before its loop), kept in locals of `f`. They go through
 * memory at `spill`: TurboFan re-splats a constant vector inside the loop at every use (two
 * instructions each, a quarter of Q6's loop); a loaded one stays in a register.
 */
export function vectorLanes(f: FunctionBody, prelude: FunctionBody, spill: ConstantSpill): VectorLanes {
  const constants = new Map<string, number>();
  return {
    number: V128,
    raw: V128,
    loadNumber: (g) => g.simd(Simd.v128Load, { align: 3 }),
    // Two rows' int32 values in the low lanes.
    loadRaw: (g) => g.simd(Simd.v128Load64Zero, { align: 2 }),
    rawToNumber: (g) => g.simd(Simd.f64x2ConvertLowI32x4S),
    constant: (g, kind, value) => {
      const key = `${kind}:${Object.is(value, -0) ? '-0' : value}`;
      let local = constants.get(key);
      if (local === undefined) {
        local = f.local(V128);
        constants.set(key, local);
        const at = spill.offset + 16 * (constants.size - 1);
        prelude.get(spill.address);
        if (kind === 'f64') prelude.f64(value).simd(Simd.f64x2Splat);
        else prelude.i32(value).simd(Simd.i32x4Splat);
        prelude.simd(Simd.v128Store, { align: 3, offset: at }).get(spill.address).simd(Simd.v128Load, { align: 3, offset: at });
        prelude.set(local);
      }
      g.get(local);
    },
    arithmetic: (g, name) => g.simd(VECTOR_ARITHMETIC[name]),
    negate: (g) => g.simd(Simd.f64x2Neg),
    compareNumbers: (g, name) => g.simd(VECTOR_COMPARE_F64[name]),
    // Four int32 lanes compared, the two rows' results widened to 64-bit lane masks.
    compareRaw: (g, name) => g.simd(VECTOR_COMPARE_I32[name]).simd(Simd.i64x2ExtendLowI32x4S),
    combine: (g, kind) => g.simd(kind === 'and' ? Simd.v128And : Simd.v128Or),
    negateTruth: (g) => g.simd(Simd.v128Not),
    spilledBytes: () => 16 * constants.size,
  };
}

/** Where a vector loop keeps its constants: 16 bytes each from `offset` past the address in local `address`. */
export interface ConstantSpill {
  readonly address: number;
  readonly offset: number;
}

export interface VectorLanes extends Lanes {
  /** Bytes of the spill the constants so far take. */
  spilledBytes(): number;
}

export interface RowContext {
  readonly f: FunctionBody;
  /** The local holding the (first) row index. */
  readonly i: number;
  readonly loads: ReadonlyMap<number, ColumnLoad>;
  /** The parameter holding each column's address. */
  readonly address: ReadonlyMap<number, number>;
}

export interface ExpressionEmitter {
  /** Pushes the expression's value as a number. */
  number(e: Expr): void;
  /** Pushes the predicate's truth (AND/OR/NOT evaluate every operand). */
  truth(e: Expr): void;
  /** Pushes an int32 column's raw value (a dictionary column's index). */
  raw(index: number): void;
}

/**
 * The column loads an expression needs, added to `loads`: doubles as f64, integers and dates as
 * i32; throws WasmUnsupported for any other column, or a NULLable one.
 */
export function noteColumns(e: Expr, shapes: readonly ColumnShape[], loads: Map<number, ColumnLoad>): void {
  if (e.kind === 'column') {
    const shape = shapes[e.index];
    if (shape === undefined || shape.nullable || shape.kind !== 'fixed') throw new WasmUnsupported();
    if (shape.type.id === 'double') loads.set(e.index, 'f64');
    else if (INT32_TYPES.has(shape.type.id)) loads.set(e.index, 'i32');
    else throw new WasmUnsupported();
  } else if (e.kind === 'call' || e.kind === 'and' || e.kind === 'or') e.args.forEach((a) => noteColumns(a, shapes, loads));
  else if (e.kind === 'not') noteColumns(e.arg, shapes, loads);
}

/** Whether `e` compares an int32 column with an int32 literal (then compared as integers: no conversion). */
function int32Comparison(e: Expr & { kind: 'call' }, loads: ReadonlyMap<number, ColumnLoad>): boolean {
  const [a, b] = e.args;
  return a.kind === 'column' && loads.get(a.index) === 'i32' && b.kind === 'literal' && typeof b.value === 'number' && b.value === (b.value | 0);
}

export function expressionEmitter(ctx: RowContext, lanes: Lanes): ExpressionEmitter {
  const { f, i, loads } = ctx;
  const locals = new Map<string, number>();
  const remember = (key: string, type: ValueType, emitValue: () => void): void => {
    let local = locals.get(key);
    if (local === undefined) {
      emitValue();
      local = f.local(type);
      locals.set(key, local);
      f.tee(local);
    } else f.get(local);
  };
  const address = (index: number, shift: number): void => {
    f.get(ctx.address.get(index) as number).get(i).i32(shift).op(Op.i32Shl).op(Op.i32Add);
  };
  const raw = (index: number): void =>
    remember(`raw:${index}`, lanes.raw, () => {
      address(index, 2);
      lanes.loadRaw(f);
    });
  const number = (e: Expr): void => {
    switch (e.kind) {
      case 'column':
        remember(`number:${e.index}`, lanes.number, () => {
          if (loads.get(e.index) === 'i32') {
            raw(e.index);
            lanes.rawToNumber(f);
          } else {
            address(e.index, 3);
            lanes.loadNumber(f);
          }
        });
        return;
      case 'literal':
        if (typeof e.value !== 'number' || !Number.isFinite(e.value) || e.type.id === 'decimal') throw new WasmUnsupported();
        lanes.constant(f, 'f64', e.value);
        return;
      case 'call':
        if (e.type.id !== 'double' || !e.args.every((a) => a.type.id === 'double' || INT32_TYPES.has(a.type.id))) throw new WasmUnsupported();
        remember(JSON.stringify(e), lanes.number, () => {
          if (e.name === '$negate' && e.args.length === 1) {
            number(e.args[0]);
            lanes.negate(f);
            return;
          }
          if (!(ARITHMETIC as readonly string[]).includes(e.name) || e.args.length !== 2) throw new WasmUnsupported();
          number(e.args[0]);
          number(e.args[1]);
          lanes.arithmetic(f, e.name as (typeof ARITHMETIC)[number]);
        });
        return;
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
          if (k > 0) lanes.combine(f, e.kind as 'and' | 'or');
        });
        return;
      case 'not':
        truth(e.arg);
        lanes.negateTruth(f);
        return;
      case 'call': {
        if (e.args.length !== 2 || !(COMPARISONS as readonly string[]).includes(e.name)) throw new WasmUnsupported();
        const name = e.name as (typeof COMPARISONS)[number];
        const [a, b] = e.args;
        if (int32Comparison(e, loads)) {
          raw((a as { index: number }).index);
          lanes.constant(f, 'i32', (b as { value: number }).value);
          lanes.compareRaw(f, name);
          return;
        }
        number(a);
        number(b);
        lanes.compareNumbers(f, name);
        return;
      }
      default:
        throw new WasmUnsupported();
    }
  };
  return { number, truth, raw };
}
