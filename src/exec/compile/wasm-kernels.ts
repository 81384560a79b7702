// What every wasm kernel compiler shares: the switch that keeps kernels in JS, each arena's
// compiled kernels (by the JS kernel's cache key), each arena's scratch memory, and the column
// addresses of a page (or -1 when a column lies outside the arena).

import type { Column } from '../../data/page.js';
import { allocArena, arenaAddress, currentArena } from '../../data/arena.js';
import { WasmUnsupported } from './wasm-module.js';

/** How a column is read: its values as f64 (8-byte loads) or i32 (4-byte loads). */
export type ColumnLoad = 'f64' | 'i32';

/** WASM_KERNELS=off keeps every kernel in JS (to compare the two). */
let enabled = process.env.WASM_KERNELS !== 'off';

/** Turns wasm kernels on or off in this thread (tests compare both forms). */
export function setWasmKernels(on: boolean): void {
  enabled = on;
}

/**
 * Per arena (one per thread, but tests install several): its compiled kernels by key (null:
 * declined), and a zeroed scratch region in it that kernels write into.
 */
interface ArenaKernels {
  readonly compiled: Map<string, unknown>;
  scratch: Float64Array | null;
  /** Named regions this thread reuses call after call (threadRegion). */
  readonly regions: Map<string, Uint8Array>;
}

const byArena = new WeakMap<WebAssembly.Memory, ArenaKernels>();

function kernelsOf(memory: WebAssembly.Memory): ArenaKernels {
  let state = byArena.get(memory);
  if (state === undefined) {
    state = { compiled: new Map(), scratch: null, regions: new Map() };
    byArena.set(memory, state);
  }
  return state;
}

/**
 * The kernel compiled under `key` for this thread's arena, built on first use; null when wasm
 * kernels are off, there is no arena, or `build` declines (throws WasmUnsupported).
 */
export function arenaKernel<K>(key: string, build: (memory: WebAssembly.Memory) => K): K | null {
  const arena = currentArena();
  if (arena === null || !enabled) return null;
  const { compiled } = kernelsOf(arena.memory);
  let kernel = compiled.get(key) as K | null | undefined;
  if (kernel === undefined) {
    try {
      kernel = build(arena.memory);
    } catch (e) {
      if (!(e instanceof WasmUnsupported)) throw e;
      kernel = null;
    }
    compiled.set(key, kernel);
  }
  return kernel;
}

/**
 * The arena's zeroed scratch region of at least `slots` doubles (grown by allocating anew; a
 * kernel leaves it zeroed); null when the arena is full.
 */
export function scratchBlock(memory: WebAssembly.Memory, slots: number): Float64Array | null {
  const state = kernelsOf(memory);
  if (state.scratch === null || state.scratch.length < slots) {
    const block = allocArena(Float64Array, Math.max(slots, 1024));
    // The arena is full: the block is on a buffer of its own, out of a kernel's reach.
    if (arenaAddress(block) < 0) return null;
    state.scratch = block;
  }
  return state.scratch;
}

/**
 * This thread's region named `name` of at least `bytes` in the arena, reused call after call; a
 * larger need allocates a new one of at least twice the size (the old one stays allocated, as
 * everything in the arena). Null when the arena is full.
 */
export function threadRegion(memory: WebAssembly.Memory, name: string, bytes: number): Uint8Array | null {
  const { regions } = kernelsOf(memory);
  let region = regions.get(name);
  if (region === undefined || region.byteLength < bytes) {
    const block = allocArena(Uint8Array, Math.max(bytes, 2 * (region?.byteLength ?? 0), 1 << 16));
    if (arenaAddress(block) < 0) return null;
    region = block;
    regions.set(name, region);
  }
  return region;
}

/**
 * Writes the arena address of each of `columns` (values of fixed columns, indices of
 * dictionary columns, read as `loads` says) of a page of `n` rows into `out` from `offset`;
 * false when one is not an arena array of that kind.
 */
export function columnAddresses(cols: readonly Column[], columns: readonly number[], loads: ReadonlyMap<number, ColumnLoad>, n: number, out: number[], offset: number): boolean {
  for (let k = 0; k < columns.length; k++) {
    const col = cols[columns[k]];
    const data = col.kind === 'fixed' ? col.values : col.kind === 'dict' ? col.indices : null;
    const expected = loads.get(columns[k]) === 'f64' ? Float64Array : Int32Array;
    if (data === null || !(data instanceof expected) || data.length < n) return false;
    const address = arenaAddress(data);
    if (address < 0) return false;
    out[offset + k] = address;
  }
  return true;
}
