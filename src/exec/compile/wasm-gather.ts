// Gathering a fixed-width column's rows by a selection vector (exec/gather.ts) as a WebAssembly
// loop, when the column lies in the column arena: a JS gather loop pays V8's per-access checks
// (2.3-4.5 ns a row against C's 0.5). The selection is copied into a region of this thread's
// own in the arena, the values gathered next to it and copied out into the caller's array: two
// copies at memory speed and a tight loop, against the JS loop. Gathered columns are per-query
// data, which the arena (never freed) must not hold, hence the copy out.

import { arenaAddress, currentArena } from '../../data/arena.js';
import { arenaKernel, threadRegion } from './wasm-kernels.js';
import { FunctionBody, I32, instantiateKernel, Op, type ValueType } from './wasm-module.js';

/** Below this many rows the JS loop is as fast as the copies. */
const MIN_ROWS = 512;

type Kernel = (count: number, src: number, sel: number, out: number) => void;

/**
 * Writes `src`'s elements at `sel[0..count)` into `into` (8 bytes each: doubles or Int64 pairs,
 * else 4) and returns true; false, with nothing written, when `src` is not in this thread's arena
 * (or wasm kernels are off, or there are too few rows to gain).
 */
export function wasmGather(src: Int32Array | Float64Array, bytes: 4 | 8, sel: Int32Array, count: number, into: Int32Array | Float64Array): boolean {
  if (count < MIN_ROWS) return false;
  const arena = currentArena();
  if (arena === null) return false;
  const srcAddress = arenaAddress(src);
  if (srcAddress < 0) return false;
  const kernel = arenaKernel(`G|${bytes}`, (memory) => compileKernel(memory, bytes));
  if (kernel === null) return false;
  // The values start 8-byte aligned after the selection (an odd count of int32 entries).
  const selBytes = Math.ceil(count / 2) * 8;
  const region = threadRegion(arena.memory, 'gather', selBytes + count * bytes);
  if (region === null) return false;
  const selAt = arenaAddress(region);
  const outAt = selAt + selBytes;
  new Int32Array(region.buffer, selAt, count).set(sel.subarray(0, count));
  kernel(count, srcAddress, selAt, outAt);
  const gathered = into instanceof Float64Array ? new Float64Array(region.buffer, outAt, count) : new Int32Array(region.buffer, outAt, (count * bytes) / 4);
  into.set(gathered);
  return true;
}

function compileKernel(memory: WebAssembly.Memory, bytes: 4 | 8): Kernel {
  const params: ValueType[] = [I32, I32, I32, I32];
  const [COUNT, SRC, SEL, OUT] = [0, 1, 2, 3];
  const f = new FunctionBody(params);
  const j = f.local(I32);
  const shift = bytes === 8 ? 3 : 2;
  const [load, store] = bytes === 8 ? [Op.i64Load, Op.i64Store] : [Op.i32Load, Op.i32Store];
  f.block().loop();
  f.get(j).get(COUNT).op(Op.i32GeU).brIf(1);
  // out[j] = src[sel[j]], bit for bit (a double's NaN payload included).
  f.get(OUT).get(j).i32(shift).op(Op.i32Shl).op(Op.i32Add);
  f.get(SRC).get(SEL).get(j).i32(2).op(Op.i32Shl).op(Op.i32Add).memory(Op.i32Load, 2).i32(shift).op(Op.i32Shl).op(Op.i32Add);
  f.memory(load, shift);
  f.memory(store, shift);
  f.get(j).i32(1).op(Op.i32Add).set(j).br(0);
  f.end().end();
  return instantiateKernel<Kernel>(memory, f);
}
