// The join probes over an integer key index (operators/hash-join.ts: matchInt64Unique, matchInt64,
// matchInt64Pair, markInt64) as WebAssembly functions. In JS they were the hottest worker code over
// the 22 TPC-H queries: a loop over typed arrays pays V8's per-access checks (a gather: 2.3-4.5 ns
// a row against C's 0.5). The probe keys are read where they lie in the column arena (tpch's Int64
// columns are allocated there; others are copied in). The build's key index lives in
// SharedArrayBuffers the arena cannot reach, so each worker copies it into a region of its own in
// the arena (threadRegion), once per join table, once the table's probes have been numerous
// enough to repay the copy.

import { arenaAddress, currentArena } from '../../data/arena.js';
import { arenaKernel, threadRegion } from './wasm-kernels.js';
import { F64, FunctionBody, I32, instantiateKernel, Op, type ValueType } from './wasm-module.js';

/** The build's key index as the probes read it (see JoinTable: direct, keyBits, keyRanks, keyMin). */
export interface UniqueKeyIndex {
  /** JoinTable.id: the index a worker's copy was made of. */
  readonly tableId: number;
  readonly direct: Int32Array;
  readonly bits: Int32Array | null;
  readonly ranks: Int32Array | null;
  /** The key offset: a probe key's slot is its low word − min (min ≥ 0, min + range ≤ 2^31). */
  readonly min: number;
  readonly range: number;
  /**
   * Over a direct index most slots hold a row: a pair is then written for every key in range and
   * counted when its slot holds one (no branch to mispredict).
   */
  readonly dense: boolean;
}

/**
 * Two keys, the index over one of them (JoinTable.indexedKey): the probe's other key (Int64 pairs,
 * read at the same rows) is compared with each indexed build row's (`buildOther`, as doubles).
 */
export interface OtherKey {
  readonly pairs: Int32Array;
  readonly buildOther: Float64Array;
}

/** A key index whose keys may repeat: each slot's first build row, the rest chained. */
export interface ChainedKeyIndex extends UniqueKeyIndex {
  readonly chain: Int32Array;
  /** Only the first build row per probe row (a semi or anti join without a filter). */
  readonly firstOnly: boolean;
  /** The longest chain (JoinTable.maxChain): at most that many pairs per probe row. */
  readonly maxChain: number;
}

/** A table's index copied into this thread's region: its arrays' byte addresses. */
interface CopiedIndex {
  readonly tableId: number;
  readonly direct: number;
  readonly bits: number;
  readonly ranks: number;
  readonly chain: number;
  readonly buildOther: number;
}

/** Per thread and arena (tests install several): the index in its index region. */
const copiedIn = new WeakMap<WebAssembly.Memory, CopiedIndex>();
/** Per thread: probe rows seen per table whose index is not copied. */
const rowsSeen = new Map<number, number>();

/**
 * A table's probes copy its index once they have read this many rows per index byte's worth:
 * the copy costs ~0.1 ns a byte, the wasm loop saves ~2-3 ns a row.
 */
const ROWS_PER_INDEX_BYTE = 1 / 32;
/** Indexes above this size stay in JS (a direct index over a very wide key range). */
const MAX_INDEX_BYTES = 64 << 20;
/** Probes that may write more pairs than this stay in JS. */
const MAX_PAIRS = 1 << 22;

/** A probe's (probe row, build row) pairs: views into this thread's region, valid until its next probe. */
export interface ProbePairs {
  readonly count: number;
  readonly probe: Int32Array;
  readonly build: Int32Array;
}

type Kernel = (n: number, pairs: number, rows: number, direct: number, bits: number, ranks: number, min: number, range: number, probe: number, build: number, chain: number, other: number, buildOther: number) => number;

/**
 * matchInt64 over a key index whose keys may repeat: the (probe row, build row) pairs, in the
 * order the JS loop pushes them, as views valid until this thread's next probe; null when the
 * probe stays in JS (as for probeUniqueInt64, or too many pairs possible).
 */
export function probeChainedInt64(pairs: Int32Array, rows: Int32Array | null, n: number, index: ChainedKeyIndex, other: OtherKey | null = null): ProbePairs | null {
  const perRow = index.firstOnly ? 1 : Math.max(1, index.maxChain);
  if (n * perRow > MAX_PAIRS) return null;
  return probe(pairs, rows, n, index, n * perRow, index.chain, index.firstOnly, other);
}

/** probeUniqueInt64's pairs as views valid until this thread's next probe (no copy); null when the probe stays in JS. */
export function probeUniqueInt64Pairs(pairs: Int32Array, rows: Int32Array | null, n: number, index: UniqueKeyIndex): ProbePairs | null {
  return probe(pairs, rows, n, index, n, null, false);
}

/**
 * matchInt64Unique over NULL-free Int64 `pairs` (row `rows[i]` of them for probe row i when a
 * filter selected rows): writes each probe row i whose key the index holds, and its build row,
 * into `probeOut` / `buildOut` and returns how many; -1, with nothing written, when the keys are
 * not in this thread's arena, wasm kernels are off, or the index is not (yet) worth copying.
 */
export function probeUniqueInt64(pairs: Int32Array, rows: Int32Array | null, n: number, index: UniqueKeyIndex, probeOut: Int32Array, buildOut: Int32Array): number {
  const found = probeUniqueInt64Pairs(pairs, rows, n, index);
  if (found === null) return -1;
  probeOut.set(found.probe);
  buildOut.set(found.build);
  return found.count;
}

function probe(
  pairs: Int32Array,
  rows: Int32Array | null,
  n: number,
  index: UniqueKeyIndex,
  capacity: number,
  chain: Int32Array | null,
  firstOnly: boolean,
  other: OtherKey | null = null,
): ProbePairs | null {
  const arena = currentArena();
  if (arena === null || n === 0) return null;
  let pairsAddress = arenaAddress(pairs);
  let otherAddress = other === null ? 0 : arenaAddress(other.pairs);
  // Keys outside the arena (a page gathered by an earlier operator) are copied in, 8 bytes a row,
  // when they are read in order; through a selection only in place.
  const copyKeys = pairsAddress < 0 || otherAddress < 0;
  if (copyKeys && rows !== null) return null;
  const kind = index.bits !== null ? 'rank' : index.dense && chain === null ? 'dense' : 'direct';
  const walk = chain === null ? 'unique' : other !== null ? (firstOnly ? 'pair-first' : 'pair') : firstOnly ? 'first' : 'chain';
  const kernel = arenaKernel(`PU|${kind}|${rows !== null ? 'rows' : 'all'}|${walk}`, (memory) => compileKernel(memory, kind, rows !== null, walk));
  if (kernel === null) return null;
  const at = indexAddresses(arena.memory, index, chain, other?.buildOther ?? null, n);
  if (at === null) return null;
  // Selected rows (or copied keys, two words a row each) in, (probe row, build row) pairs out.
  const keyColumns = other === null ? 1 : 2;
  const inWords = rows !== null ? n : copyKeys ? 2 * n * keyColumns : 0;
  const call = threadRegion(arena.memory, 'probe-call', (inWords + 2 * capacity) * 4);
  if (call === null) return null;
  const base = arenaAddress(call);
  const probeAt = base + inWords * 4;
  const buildAt = probeAt + capacity * 4;
  const words = new Int32Array(call.buffer, base, inWords + 2 * capacity);
  if (rows !== null) words.set(rows.subarray(0, n));
  else if (copyKeys) {
    words.set(pairs.subarray(0, 2 * n));
    pairsAddress = base;
    if (other !== null) {
      words.set(other.pairs.subarray(0, 2 * n), 2 * n);
      otherAddress = base + 8 * n;
    }
  }
  const count = kernel(n, pairsAddress, base, at.direct, at.bits, at.ranks, index.min, index.range, probeAt, buildAt, at.chain, otherAddress, at.buildOther);
  return { count, probe: words.subarray(inWords, inWords + count), build: words.subarray(inWords + capacity, inWords + capacity + count) };
}

/** The index's addresses in this thread's index region, copying it there when its probes have earned it; null until then. */
function indexAddresses(memory: WebAssembly.Memory, index: UniqueKeyIndex, chain: Int32Array | null, buildOther: Float64Array | null, n: number): CopiedIndex | null {
  const copied = copiedIn.get(memory);
  if (copied !== undefined && copied.tableId === index.tableId && (chain === null || copied.chain !== 0) && (buildOther === null || copied.buildOther !== 0)) return copied;
  const arrays = [index.direct, index.bits, index.ranks, chain, buildOther];
  const bytes = arrays.reduce((sum, a) => sum + (a === null ? 0 : align(a.byteLength)), 0);
  if (bytes > MAX_INDEX_BYTES) return null;
  const seen = (rowsSeen.get(index.tableId) ?? 0) + n;
  if (seen < bytes * ROWS_PER_INDEX_BYTE) {
    // Tables come and go with queries: keep the tally small.
    if (rowsSeen.size > 64) rowsSeen.clear();
    rowsSeen.set(index.tableId, seen);
    return null;
  }
  rowsSeen.delete(index.tableId);
  const region = threadRegion(memory, 'probe-index', bytes);
  if (region === null) return null;
  const base = arenaAddress(region);
  let offset = 0;
  const place = (a: Int32Array | Float64Array | null): number => {
    if (a === null) return 0;
    const at = base + offset;
    new Uint8Array(region.buffer, at, a.byteLength).set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
    offset += align(a.byteLength);
    return at;
  };
  const made = { tableId: index.tableId, direct: place(index.direct), bits: place(index.bits), ranks: place(index.ranks), chain: place(chain), buildOther: place(buildOther) };
  copiedIn.set(memory, made);
  return made;
}

function align(bytes: number): number {
  return Math.ceil(bytes / 64) * 64;
}

// Parameters.
const N = 0;
const PAIRS = 1;
const ROWS = 2;
const DIRECT = 3;
const BITS = 4;
const RANKS = 5;
const MIN = 6;
const RANGE = 7;
const PROBE = 8;
const BUILD = 9;
const CHAIN = 10;
const OTHER = 11;
const BUILD_OTHER = 12;

type Walk = 'unique' | 'first' | 'chain' | 'pair' | 'pair-first';

function compileKernel(memory: WebAssembly.Memory, kind: 'rank' | 'dense' | 'direct', withRows: boolean, walk: Walk): Kernel {
  const params: ValueType[] = Array.from({ length: 13 }, (): ValueType => I32);
  const f = new FunctionBody(params);
  const i = f.local(I32);
  const r = f.local(I32);
  const k = f.local(I32);
  const j = f.local(I32);
  const word = f.local(I32);
  const bit = f.local(I32);
  const count = f.local(I32);
  const y = f.local(F64);
  /** Pushes the address of element `index` (a local) of the array at parameter `array`, of 4 or (shift 3) 8-byte elements. */
  const element = (array: number, index: number, shift = 2): FunctionBody => f.get(array).get(index).i32(shift).op(Op.i32Shl).op(Op.i32Add);
  /** Writes the pair (row i, build row j) and counts it. */
  const writePair = (): void => {
    element(PROBE, count).get(i).memory(Op.i32Store, 2);
    element(BUILD, count).get(j).memory(Op.i32Store, 2);
    f.get(count).i32(1).op(Op.i32Add).set(count);
  };

  f.block().loop();
  f.get(i).get(N).op(Op.i32GeU).brIf(1);
  f.block();
  // The probe row's key row: r = rows[i], or i.
  if (withRows) element(ROWS, i).memory(Op.i32Load, 2).set(r);
  const keyRow = withRows ? r : i;
  // Its slot: the low word − min, unsigned, within the range; and no high word.
  element(PAIRS, keyRow, 3).tee(j).memory(Op.i32Load, 2).get(MIN).op(Op.i32Sub).tee(k);
  f.get(RANGE).op(Op.i32GeU).brIf(0);
  f.get(j).memory(Op.i32Load, 2, 4).brIf(0);
  /** Writes the pair of row i and build row j, then (walking a chain) those of j's successors. */
  const writeRows = (): void => {
    if (walk === 'unique' || walk === 'first') {
      writePair();
      return;
    }
    if (walk === 'chain') {
      f.block().loop();
      writePair();
      element(CHAIN, j).memory(Op.i32Load, 2).tee(j).i32(0).op(Op.i32GeS).brIf(0);
      f.end().end();
      return;
    }
    // Two keys: the other key as the double JS composes (hi · 2^32 + unsigned lo: the i64's
    // value, rounded once either way), compared with each chained build row's.
    element(OTHER, keyRow, 3).memory(Op.i64Load, 3).op(Op.f64ConvertI64S).set(y);
    f.block().loop();
    f.block();
    element(BUILD_OTHER, j, 3).memory(Op.f64Load, 3).get(y).op(Op.f64Ne).brIf(0);
    writePair();
    // A semi or anti join stops at the first partner.
    if (walk === 'pair-first') f.br(2);
    f.end();
    element(CHAIN, j).memory(Op.i32Load, 2).tee(j).i32(0).op(Op.i32GeS).brIf(0);
    f.end().end();
  };
  if (kind === 'rank') {
    // The key's bit; its build row at its rank: the word's rank plus the bits below it.
    f.get(BITS).get(k).i32(5).op(Op.i32ShrU).i32(2).op(Op.i32Shl).op(Op.i32Add).memory(Op.i32Load, 2).set(word);
    f.i32(1).get(k).op(Op.i32Shl).set(bit);
    f.get(word).get(bit).op(Op.i32And).op(Op.i32Eqz).brIf(0);
    f.get(DIRECT);
    f.get(RANKS).get(k).i32(5).op(Op.i32ShrU).i32(2).op(Op.i32Shl).op(Op.i32Add).memory(Op.i32Load, 2);
    f.get(word).get(bit).i32(1).op(Op.i32Sub).op(Op.i32And).op(Op.i32Popcnt).op(Op.i32Add);
    f.i32(2).op(Op.i32Shl).op(Op.i32Add).memory(Op.i32Load, 2).set(j);
    // A chained index's slot may hold no row (-1).
    if (walk !== 'unique') f.get(j).i32(0).op(Op.i32LtS).brIf(0);
    writeRows();
  } else if (kind === 'dense') {
    element(DIRECT, k).memory(Op.i32Load, 2).set(j);
    // Written whatever the slot holds, counted only when it holds a row: + (j >> 31) undoes the count of a -1.
    writePair();
    f.get(count).get(j).i32(31).op(Op.i32ShrS).op(Op.i32Add).set(count);
  } else {
    element(DIRECT, k).memory(Op.i32Load, 2).tee(j).i32(0).op(Op.i32LtS).brIf(0);
    writeRows();
  }
  f.end();
  f.get(i).i32(1).op(Op.i32Add).set(i).br(0);
  f.end().end();
  f.get(count);
  return instantiateKernel<Kernel>(memory, f, [I32]);
}
