// The bounds of an Int64 key column's low words (group-by-hash.ts: int64Bounds, which sizes a
// group-by's direct index from a page's keys) as a WebAssembly loop over the column where it lies
// in the column arena: a read-only scan, which a JS loop over typed arrays runs several times
// slower than the machine can.

import { arenaAddress, currentArena } from '../../data/arena.js';
import { arenaKernel, threadRegion } from './wasm-kernels.js';
import { FunctionBody, I32, instantiateKernel, Op, type ValueType } from './wasm-module.js';

/** Below this many rows the JS loop is as fast. */
const MIN_ROWS = 4096;

type Kernel = (n: number, pairs: number, out: number) => void;

/**
 * The least and greatest low word of NULL-free Int64 `pairs` (n rows) when every high word is 0
 * and every low word non-negative: `{ min, max }`; 'other' when some key is not such a key;
 * undefined when the scan stays in JS (not in the arena, wasm kernels off, few rows).
 */
export function wasmInt64Bounds(pairs: Int32Array, n: number): { min: number; max: number } | 'other' | undefined {
  if (n < MIN_ROWS) return undefined;
  const arena = currentArena();
  if (arena === null) return undefined;
  const at = arenaAddress(pairs);
  if (at < 0) return undefined;
  const kernel = arenaKernel('B|int64', (memory) => compileKernel(memory));
  if (kernel === null) return undefined;
  const region = threadRegion(arena.memory, 'bounds', 16);
  if (region === null) return undefined;
  const out = new Int32Array(region.buffer, arenaAddress(region), 3);
  kernel(n, at, out.byteOffset);
  return out[2] !== 0 ? 'other' : { min: out[0], max: out[1] };
}

function compileKernel(memory: WebAssembly.Memory): Kernel {
  const params: ValueType[] = [I32, I32, I32];
  const [N, PAIRS, OUT] = [0, 1, 2];
  const f = new FunctionBody(params);
  const r = f.local(I32);
  const lo = f.local(I32);
  const min = f.local(I32);
  const max = f.local(I32);
  const other = f.local(I32);
  f.i32(0x7fffffff).set(min);
  f.i32(-1).set(max);
  f.block().loop();
  f.get(r).get(N).op(Op.i32GeU).brIf(1);
  // A high word, or a low word that reads negative: not a key the low word alone describes.
  f.get(PAIRS).get(r).i32(3).op(Op.i32Shl).op(Op.i32Add).tee(lo).memory(Op.i32Load, 2, 4);
  f.get(lo).memory(Op.i32Load, 2).tee(lo).i32(0).op(Op.i32LtS).op(Op.i32Or);
  f.set(other);
  f.get(other).brIf(1);
  f.get(lo).get(min).get(lo).get(min).op(Op.i32LtS).op(Op.select).set(min);
  f.get(lo).get(max).get(lo).get(max).op(Op.i32GtS).op(Op.select).set(max);
  f.get(r).i32(1).op(Op.i32Add).set(r).br(0);
  f.end().end();
  f.get(OUT).get(min).memory(Op.i32Store, 2);
  f.get(OUT).get(max).memory(Op.i32Store, 2, 4);
  f.get(OUT).get(other).memory(Op.i32Store, 2, 8);
  return instantiateKernel<Kernel>(memory, f);
}
