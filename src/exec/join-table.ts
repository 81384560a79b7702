// The build side of a hash join: the build rows concatenated into one page, plus a chained hash
// table (bucket heads, next links, row hashes) in SharedArrayBuffers. Built once, it is handed to
// every probing driver on every worker by reference.

import { allocShared, sharedPage, type Column, type Page } from '../data/page.js';
import type { SqlType } from '../data/types.js';
import { isStringColumn, nullFlags, numericValues, stringValues } from './column-readers.js';
import { concatPages } from './concat.js';

export interface JoinTable {
  /**
   * Names the table across threads (its arrays arrive as new objects with every request): a
   * worker keeps its copy of the key index in wasm memory by it (compile/wasm-probe.ts).
   */
  readonly id: number;
  readonly page: Page;
  readonly types: readonly SqlType[];
  readonly keyColumns: readonly number[];
  /** Per key column: numbers for numeric keys (strings are compared by value, decoded per worker). */
  readonly numericKeys: readonly (Float64Array | null)[];
  readonly buckets: Int32Array;
  readonly next: Int32Array;
  readonly hashes: Int32Array;
  readonly hasNullKey: boolean;
  readonly rowCount: number;
  /** Set by probes of a FULL join: 1 where a build row found a partner. */
  readonly matched: Uint8Array | null;
  /**
   * One integer key: the first build row per key slot (-1: none), further rows chained by
   * `directNext`. Over a dense range the slot is key − `keyMin`; over a sparse one (keyBits set)
   * it is the key's rank among the build's distinct keys (see keyRanks).
   */
  readonly direct: Int32Array | null;
  readonly directNext: Int32Array | null;
  /** With `direct`: no two indexed build rows share a key (every chain ends at its first row). */
  readonly directUnique: boolean;
  /** One integer key over a sparse but bounded range: a bit per key − `keyMin`. */
  readonly keyBits: Int32Array | null;
  /** With keyBits: per 32-bit word, how many bits are set before it (rank = that + bits below in the word). */
  readonly keyRanks: Int32Array | null;
  readonly keyMin: number;
  /**
   * With two numeric keys: which one the key index is over (0 or 1); a probe then compares the
   * other with each build row the index yields (partsupp's (partkey, suppkey): four rows per
   * partkey). -1 when the index is over the only key, or there is none.
   */
  readonly indexedKey: number;
  /**
   * The longest chain a probe can walk (build rows under one direct slot or one hash bucket): an
   * upper bound on the build rows one probe row matches (hash-join.ts sizes its probe parts by it).
   */
  readonly maxChain: number;
}

/**
 * Direct indexing while the range costs at most about 64 bytes per build row, or whatever the
 * build's size over a range of at most SMALL_DIRECT_RANGE keys (256 KiB): one load per probe
 * instead of a bitmap, its ranks and a bit count.
 */
const DIRECT_BYTES_PER_ROW = 64;
const SMALL_DIRECT_RANGE = 1 << 16;
/** A key bitmap up to 1 MiB (cache-resident) always; up to 8 MiB while at most 64 bits per build row. */
const SMALL_KEY_BITS = 1 << 23;
const MAX_KEY_BITS = 1 << 26;
const KEY_BITS_PER_ROW = 64;

type KeyIndex = Pick<JoinTable, 'direct' | 'directNext' | 'directUnique' | 'keyBits' | 'keyRanks' | 'keyMin'>;
const NO_KEY_INDEX: KeyIndex = { direct: null, directNext: null, directUnique: false, keyBits: null, keyRanks: null, keyMin: 0 };

/**
 * The key index of a two-key build (see JoinTable.indexedKey): over the key with the wider
 * integer range, which has fewer rows per key to compare the other on (partsupp's partkey, four
 * rows each, rather than its suppkey, eighty), else over the other. A row with a NULL in either
 * key is left out of the index: NULL never joins.
 */
function pairIndex(keys: readonly (Float64Array | null)[], nulls: readonly (Uint8Array | null)[], n: number): { index: KeyIndex; indexedKey: number } {
  const [a, b] = keys;
  if (keys.length !== 2 || a === null || b === null) return { index: NO_KEY_INDEX, indexedKey: -1 };
  const skip = eitherNull(nulls[0], nulls[1], n);
  const ranges = [integerRange(a, skip, n), integerRange(b, skip, n)];
  const width = (k: number): number => {
    const r = ranges[k];
    return r === null ? -1 : r.max - r.min;
  };
  for (const k of width(1) > width(0) ? [1, 0] : [0, 1]) {
    const index = keyIndex(k === 0 ? a : b, skip, n, ranges[k]);
    if (index.direct !== null) return { index, indexedKey: k };
  }
  return { index: NO_KEY_INDEX, indexedKey: -1 };
}

/** Per row, 1 where either flag array has a NULL (null when neither has one). */
function eitherNull(a: Uint8Array | null, b: Uint8Array | null, n: number): Uint8Array | null {
  if (a === null) return b;
  if (b === null) return a;
  const out = new Uint8Array(n);
  for (let r = 0; r < n; r++) out[r] = a[r] | b[r];
  return out;
}

/** The number of set bits of a 32-bit integer. */
export function bitCount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/**
 * The integer range of a single numeric key column (NULLs skipped), or null if not all integers;
 * `ascending` when no key is below the one before it (a table read in key order: orders).
 */
function integerRange(keys: Float64Array, nulls: Uint8Array | null, n: number): { min: number; max: number; ascending: boolean } | null {
  let min = Infinity;
  let max = -Infinity;
  let ascending = true;
  for (let r = 0; r < n; r++) {
    if (nulls !== null && nulls[r] === 1) continue;
    const x = keys[r];
    if (!Number.isSafeInteger(x)) return null;
    if (x < max) ascending = false;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  return min <= max ? { min, max, ascending } : null;
}

/** Direct index (dense range) or rank index (sparse range) for a single integer key (see JoinTable). */
function keyIndex(keys: Float64Array, nulls: Uint8Array | null, n: number, bounds = n === 0 ? null : integerRange(keys, nulls, n)): KeyIndex {
  if (!bounds) return NO_KEY_INDEX;
  const range = bounds.max - bounds.min + 1;
  const dense = range * 4 <= DIRECT_BYTES_PER_ROW * n + 4096 || range <= SMALL_DIRECT_RANGE;
  if (!dense && !(range <= SMALL_KEY_BITS || (range <= MAX_KEY_BITS && range <= KEY_BITS_PER_ROW * n))) return NO_KEY_INDEX;
  // Over a sparse range, a rank index: probes of ascending keys (lineitem by orderkey into orders)
  // read the bitmap, ranks and first rows in order instead of hashing into random buckets.
  let keyBits: Int32Array | null = null;
  let keyRanks: Int32Array | null = null;
  let slots = range;
  if (!dense) {
    const words = (range + 31) >>> 5;
    keyBits = allocShared(Int32Array, words);
    markKeyBits(keyBits, keys, nulls, bounds.min, n);
    keyRanks = allocShared(Int32Array, words);
    slots = rankWords(keyBits, keyRanks);
  }
  const direct = allocShared(Int32Array, slots).fill(-1);
  const directNext = allocShared(Int32Array, n);
  const directUnique =
    keyBits === null || keyRanks === null
      ? chainDense(direct, directNext, keys, nulls, bounds.min, n)
      : bounds.ascending
        ? chainAscending(direct, directNext, keys, nulls, slots, n)
        : chainRanked(direct, directNext, keyBits, keyRanks, keys, nulls, bounds.min, n);
  return { direct, directNext, directUnique, keyBits, keyRanks, keyMin: bounds.min };
}

// keyIndex's row loops, each a function of its own over typed arrays: as one function with
// several loops it was optimized while its first loop ran (on-stack replacement) and deoptimized
// after it on every later build (91 deoptimizations over 30 builds of Q7's 146k-row table; the
// build's time, 12–17 ms here, did not move beyond noise; each deoptimization is a recompilation
// on the compiler threads). See exec/gather.ts.

function markKeyBits(bits: Int32Array, keys: Float64Array, nulls: Uint8Array | null, min: number, n: number): void {
  for (let r = 0; r < n; r++) {
    if (nulls !== null && nulls[r] === 1) continue;
    const k = keys[r] - min;
    bits[k >>> 5] |= 1 << (k & 31);
  }
}

/** Each word's rank: the set bits before it; returns the set bits in all. */
function rankWords(bits: Int32Array, ranks: Int32Array): number {
  let slots = 0;
  for (let w = 0; w < bits.length; w++) {
    ranks[w] = slots;
    slots += bitCount(bits[w]);
  }
  return slots;
}

/** Chains each row under its key's slot (key − min), in reverse so chains list rows in build order; true when no key repeats. */
function chainDense(direct: Int32Array, next: Int32Array, keys: Float64Array, nulls: Uint8Array | null, min: number, n: number): boolean {
  let unique = true;
  for (let r = n - 1; r >= 0; r--) {
    if (nulls !== null && nulls[r] === 1) continue;
    const slot = keys[r] - min;
    const first = direct[slot];
    if (first >= 0) unique = false;
    next[r] = first;
    direct[slot] = r;
  }
  return unique;
}

/**
 * chainRanked for keys in ascending order: a key's rank among the `slots` keys present is counted
 * down as the rows are walked backwards, not looked up in the bitmap (a rank lookup and a bit
 * count a row: ~2 of the ~12 ms of Q3's 147k-row build here).
 */
function chainAscending(direct: Int32Array, next: Int32Array, keys: Float64Array, nulls: Uint8Array | null, slots: number, n: number): boolean {
  let unique = true;
  let slot = slots;
  let last = Infinity;
  for (let r = n - 1; r >= 0; r--) {
    if (nulls !== null && nulls[r] === 1) continue;
    const k = keys[r];
    if (k !== last) {
      slot--;
      last = k;
    }
    const first = direct[slot];
    if (first >= 0) unique = false;
    next[r] = first;
    direct[slot] = r;
  }
  return unique;
}

/** chainDense over a sparse range: a key's slot is its rank among the keys present. */
function chainRanked(direct: Int32Array, next: Int32Array, bits: Int32Array, ranks: Int32Array, keys: Float64Array, nulls: Uint8Array | null, min: number, n: number): boolean {
  let unique = true;
  for (let r = n - 1; r >= 0; r--) {
    if (nulls !== null && nulls[r] === 1) continue;
    const k = keys[r] - min;
    const slot = ranks[k >>> 5] + bitCount(bits[k >>> 5] & ((1 << (k & 31)) - 1));
    const first = direct[slot];
    if (first >= 0) unique = false;
    next[r] = first;
    direct[slot] = r;
  }
  return unique;
}

const scratch = new Float64Array(1);
const bits = new Int32Array(scratch.buffer);

/** Hash of one number: integers (the common case: keys) without touching their bits in memory. */
export function hashNumber(x: number): number {
  let lo: number;
  let hi: number;
  if (Number.isSafeInteger(x)) {
    lo = x | 0;
    hi = (x / 4294967296) | 0;
  } else {
    scratch[0] = x === 0 ? 0 : x === x ? x : NaN; // -0 and 0 hash alike, and every NaN
    lo = bits[0];
    hi = bits[1];
  }
  let h = Math.imul(lo ^ Math.imul(hi, 0x27d4eb2d), 0x9e3779b1);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  return (h ^ (h >>> 13)) | 0;
}

export function mixNumber(h: number, x: number): number {
  return Math.imul(h ^ hashNumber(x), 0x01000193) | 0;
}

export function mixString(h: number, s: string): number {
  let x = h ^ 0x811c9dc5;
  for (let i = 0; i < s.length; i++) x = Math.imul(x ^ s.charCodeAt(i), 0x01000193);
  return mixNumber(h, x);
}

export interface KeyReader {
  readonly numbers: (Float64Array | null)[];
  readonly strings: (string[] | null)[];
  readonly nulls: (Uint8Array | null)[];
}

/** Key columns as numbers or strings; `scratch[k]` may receive key k's converted numbers (see numericValues). */
export function readKeys(columns: readonly Column[], scratch?: readonly Float64Array[]): KeyReader {
  return {
    numbers: columns.map((c, k) => (isStringColumn(c) ? null : numericValues(c, scratch?.[k]))),
    strings: columns.map((c) => (isStringColumn(c) ? stringValues(c) : null)),
    nulls: columns.map((c) => nullFlags(c)),
  };
}

export const ROW_HASH_SEED = 0x2545f491;

/** Hash of row `r`'s keys, or undefined when a key is NULL (NULL never joins). */
export function hashRow(k: KeyReader, r: number): number | undefined {
  if (k.numbers.length === 1 && k.numbers[0] !== null) {
    const nulls = k.nulls[0];
    return nulls !== null && nulls[r] === 1 ? undefined : hashNumber(k.numbers[0][r]);
  }
  let h = ROW_HASH_SEED;
  for (let c = 0; c < k.numbers.length; c++) {
    const nulls = k.nulls[c];
    if (nulls !== null && nulls[r] === 1) return undefined;
    const num = k.numbers[c];
    h = num !== null ? mixNumber(h, num[r]) : mixString(h, (k.strings[c] as string[])[r]);
  }
  return h;
}

/** A string key's place in readKeys' scratch list (it gets no numbers). */
const EMPTY_KEYS = new Float64Array(0);

export function buildJoinTable(pages: readonly Page[], types: readonly SqlType[], keyColumns: readonly number[], trackMatches: boolean): JoinTable {
  // The table travels with every probing driver's request: a buffer not on a SharedArrayBuffer
  // (a page built on this thread, or one received in a message) would be copied into each. Q21's
  // 73k-row build page was: 2.8 MB copied 23 times a query, ~9 ms of the coordinator's thread each.
  const page = pages.length === 0 ? { length: 0, columns: [] as Column[] } : sharedPage(concatPages(pages, types));
  const n = page.length;
  // Numeric keys converted straight into shared arrays (double keys are the shared page's own
  // values): they travel with the table too. One pass over 147k keys and a 1.2 MB array less
  // for Q3's orders (a fresh array's pages cost ~0.3 ms per MB here).
  const keyCols = keyColumns.map((c) => page.columns[c]!);
  const keys = n === 0 ? { numbers: [], strings: [], nulls: [] } : readKeys(keyCols, keyCols.map((c) => (isStringColumn(c) ? EMPTY_KEYS : allocShared(Float64Array, n))));
  const numericKeys = keys.numbers;
  const single = numericKeys.length === 1 ? numericKeys[0] : null;
  const pair = single === null && n > 0 ? pairIndex(numericKeys, keys.nulls, n) : { index: NO_KEY_INDEX, indexedKey: -1 };
  const index = single ? keyIndex(single, keys.nulls[0], n) : pair.index;
  let hasNullKey = false;
  for (const nulls of keys.nulls) if (nulls !== null && nulls.includes(1)) hasNullKey = true;
  // A direct or rank index answers every probe of a single integer key: no hash table needed.
  const hashed = index.direct === null;
  let size = 16;
  while (hashed && size < n * 2) size *= 2;
  const buckets = allocShared(Int32Array, hashed ? size : 1).fill(-1);
  const next = allocShared(Int32Array, hashed ? Math.max(1, n) : 1);
  const hashes = allocShared(Int32Array, hashed ? Math.max(1, n) : 1);
  const mask = size - 1;
  if (hashed) {
    const singleNulls = single !== null ? keys.nulls[0] : null;
    // Insert in reverse so chains list rows in build order. One numeric key is hashed inline.
    for (let r = n - 1; r >= 0; r--) {
      const h = single === null ? hashRow(keys, r) : singleNulls !== null && singleNulls[r] === 1 ? undefined : hashNumber(single[r]);
      if (h === undefined) {
        next[r] = -1;
        continue;
      }
      hashes[r] = h;
      const b = h & mask;
      next[r] = buckets[b];
      buckets[b] = r;
    }
  }
  return {
    id: Math.floor(Math.random() * 2 ** 52),
    page,
    types,
    keyColumns,
    numericKeys,
    buckets,
    next,
    hashes,
    hasNullKey,
    rowCount: n,
    matched: trackMatches ? allocShared(Uint8Array, Math.max(1, n)) : null,
    ...index,
    indexedKey: pair.indexedKey,
    maxChain: hashed ? longestChain(buckets, next) : index.directUnique ? 1 : longestChain(index.direct as Int32Array, index.directNext as Int32Array),
  };
}

/** The longest chain from any head in `heads` through `next` (-1 ends a chain): one pass over the rows. */
function longestChain(heads: Int32Array, next: Int32Array): number {
  let longest = 0;
  for (let h = 0; h < heads.length; h++) {
    let length = 0;
    for (let r = heads[h]; r >= 0; r = next[r]) length++;
    if (length > longest) longest = length;
  }
  return longest;
}

export function joinTableBytes(t: JoinTable): number {
  let bytes = t.buckets.byteLength + t.next.byteLength + t.hashes.byteLength + (t.direct?.byteLength ?? 0) + (t.directNext?.byteLength ?? 0) + (t.keyBits?.byteLength ?? 0) + (t.keyRanks?.byteLength ?? 0);
  for (const k of t.numericKeys) bytes += k ? k.byteLength : 0;
  for (const c of t.page.columns) bytes += c.kind === 'varchar' ? c.data.byteLength + c.offsets.byteLength : c.kind === 'dict' ? c.indices.byteLength : c.values.byteLength;
  return bytes;
}
