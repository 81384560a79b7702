// A filter kernel (compile.ts: compileFilter) as a WebAssembly function, for pages whose columns
// lie in the column arena: the predicate of each row as 0/1, the row index written to a selection
// vector unconditionally and the count advanced by the result (branch-free, as the JS kernel's
// branch-free form). Rows go in chunks whose selection vectors are written in the arena's
// scratch region and copied out. The same predicates as the aggregation kernels: NOT NULL double,
// integer and date columns, numeric literals, + - * / on doubles, comparisons and AND/OR/NOT.

import type { Column } from '../../data/page.js';
import type { Expr } from '../../sql/ir.js';
import type { ColumnShape } from './emit.js';
import { arenaKernel, columnAddresses, scratchBlock, type ColumnLoad } from './wasm-kernels.js';
import { FunctionBody, I32, instantiateKernel, Op, type ValueType } from './wasm-module.js';
import { expressionEmitter, noteColumns, SCALAR_LANES } from './wasm-expressions.js';

/** Rows per call: the selection vector (4 bytes a row) stays in the second-level cache. */
const CHUNK = 1 << 16;

export interface WasmFilter {
  /** Writes the selected rows of `cols` (of `n`) into `sel` and returns how many; -1, with nothing written, when a column is not in this thread's arena. */
  run(cols: readonly Column[], n: number, sel: Int32Array): number;
}

/** The wasm form of a filter kernel, or null when this thread has no arena or the predicate is outside what it compiles. */
export function compileWasmFilter(key: string, predicate: Expr, shapes: readonly ColumnShape[]): WasmFilter | null {
  return arenaKernel(`F|${key}`, (memory) => build(memory, predicate, shapes));
}

function build(memory: WebAssembly.Memory, predicate: Expr, shapes: readonly ColumnShape[]): WasmFilter {
  const loads = new Map<number, ColumnLoad>();
  noteColumns(predicate, shapes, loads);
  const columns = [...loads.keys()];
  // Parameters: the first row, the row after the last, the selection vector's address, then each column's.
  const params: ValueType[] = [I32, I32, I32, ...columns.map((): ValueType => I32)];
  const f = new FunctionBody(params);
  const START = 0;
  const END = 1;
  const SEL = 2;
  const address = new Map(columns.map((c, k) => [c, 3 + k]));
  const i = f.local(I32);
  const count = f.local(I32);
  const keep = f.local(I32);
  const row = expressionEmitter({ f, i, loads, address }, SCALAR_LANES);
  f.get(START).set(i);
  f.block().loop();
  f.get(i).get(END).op(Op.i32GeU).brIf(1);
  row.truth(predicate);
  f.set(keep);
  f.get(SEL).get(count).i32(2).op(Op.i32Shl).op(Op.i32Add).get(i).memory(Op.i32Store, 2);
  f.get(count).get(keep).op(Op.i32Add).set(count);
  f.get(i).i32(1).op(Op.i32Add).set(i).br(0);
  f.end().end();
  f.get(count);
  const kernel = instantiateKernel<(...args: number[]) => number>(memory, f, [I32]);
  const args: number[] = new Array<number>(3 + columns.length).fill(0);
  return {
    run(cols, n, sel) {
      if (!columnAddresses(cols, columns, loads, n, args, 3)) return -1;
      // Int32 entries in a region of doubles: CHUNK / 2 slots hold CHUNK indices.
      const scratch = scratchBlock(memory, CHUNK / 2);
      if (scratch === null) return -1;
      const indices = new Int32Array(scratch.buffer, scratch.byteOffset, CHUNK);
      args[2] = scratch.byteOffset;
      let total = 0;
      for (let start = 0; start < n; start += CHUNK) {
        args[0] = start;
        args[1] = Math.min(n, start + CHUNK);
        const kept = kernel(...args);
        sel.set(indices.subarray(0, kept), total);
        total += kept;
      }
      // The scratch region is zero between kernels (the aggregation kernels add into it).
      indices.fill(0, 0, Math.min(n, CHUNK));
      return total;
    },
  };
}
