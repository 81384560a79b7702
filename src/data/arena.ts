// The column arena: one shared WebAssembly.Memory per worker pool, where data cached for the life of
// the server (generated tpch columns) is allocated, so that WebAssembly kernels can read it where it
// lies (exec/compile/wasm-aggregate.ts). JS reads the same bytes through ordinary typed-array views:
// the memory's buffer is a SharedArrayBuffer, so arena pages cross threads by reference like any
// other. Allocation only bumps a shared pointer (the data is never freed before the pool is); when
// the arena is full or absent, allocArena falls back to an ordinary SharedArrayBuffer.

import { allocShared, type TypedArrayConstructor } from './page.js';

const PAGE_BYTES = 65536;
/** wasm32's limit: 65536 pages, 4 GiB. */
const MAX_PAGES = 65536;
/** Allocations are aligned to a cache line. */
const ALIGN = 64;
/**
 * Header: a 16-byte random tag that identifies the arena's buffer, the bump pointer (in ALIGN units)
 * and the maximum size in pages (WebAssembly.Memory does not report it).
 */
const TAG_WORDS = 4;
const TOP_WORD = TAG_WORDS;
const MAX_PAGES_WORD = TAG_WORDS + 1;
const HEADER_BYTES = ALIGN;
/** The memory grows by at least this much at a time (a grow is a system call and refreshes every view's buffer). */
const GROW_STEP_PAGES = 1024;

export interface Arena {
  readonly memory: WebAssembly.Memory;
  /** The header words (tag, bump pointer), over the memory's first page. */
  readonly header: Int32Array;
}

/** Creates an arena able to grow to `maxBytes` (at most 4 GiB). */
export function createArena(maxBytes: number = MAX_PAGES * PAGE_BYTES): WebAssembly.Memory {
  const maximum = Math.max(1, Math.min(MAX_PAGES, Math.floor(maxBytes / PAGE_BYTES)));
  const memory = new WebAssembly.Memory({ initial: 1, maximum, shared: true });
  const header = new Int32Array(memory.buffer, 0, HEADER_BYTES / 4);
  crypto.getRandomValues(header.subarray(0, TAG_WORDS));
  Atomics.store(header, TOP_WORD, HEADER_BYTES / ALIGN);
  Atomics.store(header, MAX_PAGES_WORD, maximum);
  return memory;
}

let current: Arena | null = null;
/** Per buffer object seen (each thread has its own object for the same memory): is it the arena's? */
const knownBuffers = new WeakMap<ArrayBufferLike, boolean>();

/** Makes `memory` (from createArena, possibly on another thread) this thread's arena. */
export function installArena(memory: WebAssembly.Memory | null): void {
  current = memory === null ? null : { memory, header: new Int32Array(memory.buffer, 0, HEADER_BYTES / 4) };
}

/** This thread's arena, if one is installed. */
export function currentArena(): Arena | null {
  return current;
}

/**
 * A typed array of `length` elements in this thread's arena, zeroed (fresh wasm pages are zero and
 * nothing is ever freed); on a SharedArrayBuffer of its own when there is no arena or no room.
 */
export function allocArena<C extends TypedArrayConstructor>(ctor: C, length: number): InstanceType<C> {
  const arena = current;
  const bytes = Math.max(8, length * ctor.BYTES_PER_ELEMENT);
  if (arena === null) return allocShared(ctor, length);
  const units = Math.ceil(bytes / ALIGN);
  const maxBytes = Atomics.load(arena.header, MAX_PAGES_WORD) * PAGE_BYTES;
  // Already full: do not move the pointer any further (it counts in int32).
  if ((Atomics.load(arena.header, TOP_WORD) + units) * ALIGN > maxBytes) return allocShared(ctor, length);
  const start = Atomics.add(arena.header, TOP_WORD, units) * ALIGN;
  const end = start + units * ALIGN;
  // Another thread took the rest first.
  if (end > maxBytes) return allocShared(ctor, length);
  if (!ensureSize(arena.memory, end, maxBytes)) return allocShared(ctor, length);
  const make = ctor as unknown as new (buffer: ArrayBufferLike, offset: number, length: number) => InstanceType<C>;
  return new make(arena.memory.buffer, start, length);
}

/**
 * Grows the memory until it holds `end` bytes (other threads may grow it at the same time); false
 * when it cannot (the system refused the memory).
 */
function ensureSize(memory: WebAssembly.Memory, end: number, maxBytes: number): boolean {
  for (let attempt = 0; memory.buffer.byteLength < end; attempt++) {
    if (attempt === 8) return false;
    const have = memory.buffer.byteLength / PAGE_BYTES;
    const want = Math.min(maxBytes / PAGE_BYTES, Math.max(Math.ceil(end / PAGE_BYTES), have + GROW_STEP_PAGES));
    try {
      memory.grow(want - have);
    } catch {
      // Another thread grew it in between (so this delta overshoots the maximum), or no memory: look again.
    }
  }
  return true;
}

/**
 * Where `a` lies in this thread's arena (its byte address for a wasm kernel), or -1 when it is
 * not in it. A buffer is the arena's when it starts with the arena's random tag.
 */
export function arenaAddress(a: ArrayBufferView): number {
  const arena = current;
  if (arena === null) return -1;
  const buffer = a.buffer;
  let known = knownBuffers.get(buffer);
  if (known === undefined) {
    known = false;
    if (buffer instanceof SharedArrayBuffer && buffer.byteLength >= HEADER_BYTES) {
      const head = new Int32Array(buffer, 0, TAG_WORDS);
      known = head[0] === arena.header[0] && head[1] === arena.header[1] && head[2] === arena.header[2] && head[3] === arena.header[3];
    }
    knownBuffers.set(buffer, known);
  }
  return known ? a.byteOffset : -1;
}
