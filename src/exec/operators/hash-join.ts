// Hash join probe: each probe row walks its hash chain in the shared JoinTable; matching pairs are
// gathered into output pages (probe columns ++ build columns), a residual condition filters the
// pairs, and the join type decides what is emitted: inner pairs, left (pairs or a NULL-extended
// row), semi (probe rows with a partner), anti (without; NOT IN's NULL rules when null-aware).

import type { Column, Page } from '../../data/page.js';
import type { SqlType } from '../../data/types.js';
import type { Expr } from '../../sql/ir.js';
import { EngineError } from '../../util/engine-error.js';
import { numericValuesAt, stringValues } from '../column-readers.js';
import { compileFilter, shapesOf, usedColumns } from '../compile/compile.js';
import { probeChainedInt64, probeUniqueInt64, probeUniqueInt64Pairs, type ChainedKeyIndex, type ProbePairs } from '../compile/wasm-probe.js';
import { gatherColumn, gatherWithNulls, nullColumn, sliceColumn } from '../gather.js';
import { bitCount, hashNumber, hashRow, mixNumber, readKeys, ROW_HASH_SEED, type JoinTable, type KeyReader } from '../join-table.js';
import { emptyOperatorStats, nowNanos, recordInput, recordOutput, type OperatorStats } from '../metrics.js';
import type { Operator, PageSink, SelectionSink } from './operator.js';
import { checkpoint } from '../query-control.js';

export type ProbeJoinType = 'inner' | 'left' | 'full' | 'semi' | 'anti' | 'mark';

const buildStrings = new WeakMap<object, string[]>();

/** Build key strings decoded once per worker per table. */
function buildKeyStrings(table: JoinTable, k: number): string[] {
  const col = table.page.columns[table.keyColumns[k]];
  let s = buildStrings.get(col);
  if (!s) {
    s = stringValues(col);
    buildStrings.set(col, s);
  }
  return s;
}

/**
 * Buffers for converted probe keys, shared by every join of this worker thread: keys are read and
 * used within one `process` call, which never runs another operator before it returns.
 */
const scratch: Float64Array[] = [];

/** About the most (probe row, build row) pairs one process() call forms (see probeInParts). */
const MAX_PAIRS_AT_ONCE = 1 << 20;
/** Rows of the first part of a page whose rows may pair with many build rows. */
const FIRST_PART_ROWS = 256;
function keyScratch(keys: number, rows: number): Float64Array[] {
  for (let k = 0; k < keys; k++) if (scratch[k] === undefined || scratch[k].length < rows) scratch[k] = new Float64Array(Math.max(rows, 1024));
  return scratch;
}

/**
 * The key index slot of `k` (a probe key − the build's minimum): k itself over a dense range, its
 * rank over a sparse one; -1 when no build row has that key (out of range, NaN, not an integer,
 * or not in the rank bitmap).
 */
function keySlot(k: number, range: number, bits: Int32Array | null, ranks: Int32Array | null): number {
  if (!(k >= 0 && k < range) || (k | 0) !== k) return -1;
  if (bits === null || ranks === null) return k;
  const word = bits[k >>> 5];
  const bit = 1 << (k & 31);
  return (word & bit) === 0 ? -1 : ranks[k >>> 5] + bitCount(word & (bit - 1));
}

/** Types whose equal values are identical (a join key's value can stand for the other side's). */
const EXACT_EQUALITY = new Set(['tinyint', 'smallint', 'integer', 'bigint', 'date', 'timestamp', 'varchar', 'boolean']);

function sameExactType(a: SqlType, b: SqlType): boolean {
  return a.id === b.id && EXACT_EQUALITY.has(a.id) && (a.id !== 'varchar' || a.precision === b.precision);
}

/** Whether idx[0..count) is 0, 1, …, count − 1. */
function isIdentity(idx: Int32Array, count: number): boolean {
  for (let k = 0; k < count; k++) if (idx[k] !== k) return false;
  return true;
}

export class HashJoinOperator implements Operator, SelectionSink {
  readonly stats: OperatorStats;
  /**
   * Semi and anti joins without a residual condition only ask whether a probe row has a partner:
   * the first one found ends its search (Q22's NOT EXISTS over orders walked ten per customer).
   */
  private readonly firstOnly: boolean;
  private pairsProbe = new Int32Array(1024);
  /** Pairs the key matching formed so far (probeInParts sizes its parts by it). */
  private pairsFormed = 0;
  private pairsBuild = new Int32Array(1024);

  constructor(
    operatorId: number,
    private readonly table: JoinTable,
    private readonly joinType: ProbeJoinType,
    private readonly probeKeys: readonly number[],
    private readonly filter: Expr | null,
    private readonly nullAware: boolean,
    private readonly singleMatch: boolean,
    /** Which of (probe ++ build) columns inner/left joins emit (null: all). */
    private readonly output: readonly number[] | null,
    private readonly next: PageSink,
  ) {
    this.stats = emptyOperatorStats(operatorId, 'LookupJoinOperator');
    this.firstOnly = (joinType === 'semi' || joinType === 'anti') && filter === null;
  }

  /** Pair arrays of at least `n` entries (their contents not kept). */
  private reservePairs(n: number): void {
    if (this.pairsProbe.length < n) {
      this.pairsProbe = new Int32Array(n);
      this.pairsBuild = new Int32Array(n);
    }
  }

  /** A wasm probe's pairs as this operator's (see push); returns their count. */
  private takePairs(found: ProbePairs): number {
    if (this.pairsProbe.length < found.count) {
      this.pairsProbe = new Int32Array(Math.max(found.count, 2 * this.pairsProbe.length));
      this.pairsBuild = new Int32Array(this.pairsProbe.length);
    }
    this.pairsProbe.set(found.probe);
    this.pairsBuild.set(found.build);
    return found.count;
  }

  /** Records pair number `count` (probe row p, build row b), growing the pair arrays as needed. */
  private push(count: number, p: number, b: number): void {
    if (count >= this.pairsProbe.length) {
      const a = new Int32Array(this.pairsProbe.length * 2);
      a.set(this.pairsProbe);
      this.pairsProbe = a;
      const c = new Int32Array(this.pairsBuild.length * 2);
      c.set(this.pairsBuild);
      this.pairsBuild = c;
    }
    this.pairsProbe[count] = p;
    this.pairsBuild[count] = b;
  }

  private keysEqual(probe: KeyReader, i: number, j: number): boolean {
    const t = this.table;
    for (let k = 0; k < this.probeKeys.length; k++) {
      const nums = probe.numbers[k];
      const bnums = t.numericKeys[k];
      if (nums !== null && bnums !== null) {
        if (nums[i] !== bnums[j]) return false;
      } else {
        const ps = probe.strings[k];
        if (ps === null || ps[i] !== buildKeyStrings(t, k)[j]) return false;
      }
    }
    return true;
  }

  /** All (probe row, build row) pairs whose keys are equal. */
  private match(page: Page, probe: KeyReader | null): number {
    const t = this.table;
    let count = 0;
    if (t.rowCount === 0) return 0;
    if (probe === null) {
      // Cross join: every probe row with every build row (with the first, when one decides).
      const matches = this.firstOnly ? 1 : t.rowCount;
      for (let i = 0; i < page.length; i++) for (let j = 0; j < matches; j++) this.push(count++, i, j);
      return count;
    }
    const mask = t.buckets.length - 1;
    const buckets = t.buckets;
    const nextRow = t.next;
    const single = probe.numbers.length === 1 ? probe.numbers[0] : null;
    const buildKeys = t.numericKeys[0];
    if (single !== null && buildKeys !== null && buildKeys !== undefined && t.direct !== null) return this.matchDirect(page.length, single, probe.nulls[0], null, null);
    if (single !== null && buildKeys !== null && buildKeys !== undefined) {
      // One numeric key: the common case, without per-row key objects or hash re-checks.
      const nulls = probe.nulls[0];
      const firstOnly = this.firstOnly;
      for (let i = 0; i < page.length; i++) {
        if (nulls !== null && nulls[i] === 1) continue;
        const x = single[i];
        for (let j = buckets[hashNumber(x) & mask]; j >= 0; j = nextRow[j]) {
          if (buildKeys[j] === x) {
            this.push(count++, i, j);
            if (firstOnly) break;
          }
        }
      }
      return count;
    }
    if (probe.numbers.length === 2) {
      const [a, b] = probe.numbers;
      const [ba, bb] = t.numericKeys;
      if (a && b && ba && bb && t.indexedKey >= 0) {
        const k = t.indexedKey;
        return this.matchIndexedPair(page.length, k === 0 ? a : b, k === 0 ? b : a, probe.nulls[k], probe.nulls[1 - k], k === 0 ? bb : ba);
      }
      if (a && b && ba && bb) return this.matchTwoNumbers(page.length, a, b, probe.nulls[0], probe.nulls[1], ba, bb);
    }
    for (let i = 0; i < page.length; i++) {
      const h = hashRow(probe, i);
      if (h === undefined) continue;
      for (let j = t.buckets[h & mask]; j >= 0; j = t.next[j]) {
        if (t.hashes[j] === h && this.keysEqual(probe, i, j)) {
          this.push(count++, i, j);
          if (this.firstOnly) break;
        }
      }
    }
    return count;
  }

  /** The build's integer key index, as locals for the probe loops; `range` bounds key − min. */
  private keyIndex(): { direct: Int32Array; chain: Int32Array; min: number; range: number; bits: Int32Array | null; ranks: Int32Array | null; lowWord: boolean } {
    const t = this.table;
    const direct = t.direct as Int32Array;
    const bits = t.keyBits;
    const range = bits !== null ? bits.length * 32 : direct.length;
    // The index's keys are all non-negative int32 (TPC-H's keys): an Int64 probe key with a high
    // word is then outside it, and its offset is integer arithmetic on the low word (~15% faster
    // than composing a double).
    const lowWord = t.keyMin >= 0 && t.keyMin + range <= 2 ** 31;
    return { direct, chain: t.directNext as Int32Array, min: t.keyMin, range, bits, ranks: t.keyRanks, lowWord };
  }

  /** The key index as the wasm probes take it (compile/wasm-probe.ts). */
  private wasmKeyIndex(firstOnly: boolean): ChainedKeyIndex {
    const t = this.table;
    const { direct, chain, min, range, bits, ranks } = this.keyIndex();
    return { tableId: t.id, direct, bits, ranks, min, range, dense: t.rowCount * 16 > range, chain, firstOnly, maxChain: t.maxChain };
  }

  /**
   * One integer key: the key (dense range) or its rank (sparse range) indexes the first build row.
   * Keys come as numbers (`keys[i]`, with `nulls`) or as NULL-free Int64 (lo, hi) `pairs` read at
   * row `rows[i]` of a virtual page (see process).
   */
  private matchDirect(n: number, keys: Float64Array | null, nulls: Uint8Array | null, pairs: Int32Array | null, rows: Int32Array | null): number {
    const { direct, chain, min, range, bits, ranks } = this.keyIndex();
    const firstOnly = this.firstOnly;
    let count = 0;
    for (let i = 0; i < n; i++) {
      let x: number;
      if (pairs !== null) {
        const r = rows === null ? i : rows[i];
        x = pairs[2 * r + 1] * 4294967296 + (pairs[2 * r] >>> 0);
      } else {
        if (nulls !== null && nulls[i] === 1) continue;
        x = (keys as Float64Array)[i];
      }
      const slot = keySlot(x - min, range, bits, ranks);
      if (slot < 0) continue;
      for (let j = direct[slot]; j >= 0; j = firstOnly ? -1 : chain[j]) this.push(count++, i, j);
    }
    return count;
  }

  /**
   * matchDirect's hot case as loops of their own: NULL-free Int64 keys read in place (row i of the
   * probe is row `rows[i]` of the key column when a filter selected rows; no per-row checks of
   * which form the keys come in; they are integers, so only the range is tested) into a rank index
   * (sparse keys) or a direct one.
   */
  private matchInt64(n: number, pairs: Int32Array, rows: Int32Array | null): number {
    const { direct, chain, min, range, bits, ranks, lowWord } = this.keyIndex();
    // Only over low-word keys (keyIndex); other keys take matchDirect's general loop.
    if (!lowWord) return this.matchDirect(n, null, null, pairs, rows);
    if (this.table.directUnique) return this.matchInt64Unique(n, pairs, rows, direct, min, range, bits, ranks);
    const firstOnly = this.firstOnly;
    // The same loop in WebAssembly when the keys lie in (or can be copied into) the column arena.
    const found = probeChainedInt64(pairs, rows, n, this.wasmKeyIndex(firstOnly));
    if (found !== null) return this.takePairs(found);
    let count = 0;
    // The high word is tested only for keys the index holds; over a direct index, loops of their
    // own with and without `rows` (as matchInt64Unique).
    if (bits !== null && ranks !== null) {
      for (let i = 0; i < n; i++) {
        const r = rows === null ? i : rows[i];
        const k = (pairs[2 * r] - min) >>> 0;
        if (k >= range) continue;
        const word = bits[k >>> 5];
        const bit = 1 << (k & 31);
        if ((word & bit) === 0 || pairs[2 * r + 1] !== 0) continue;
        for (let j = direct[ranks[k >>> 5] + bitCount(word & (bit - 1))]; j >= 0; j = firstOnly ? -1 : chain[j]) this.push(count++, i, j);
      }
      return count;
    }
    if (rows === null) {
      for (let i = 0; i < n; i++) {
        const k = (pairs[2 * i] - min) >>> 0;
        if (k >= range) continue;
        const first = direct[k];
        if (first < 0 || pairs[2 * i + 1] !== 0) continue;
        for (let j = first; j >= 0; j = firstOnly ? -1 : chain[j]) this.push(count++, i, j);
      }
      return count;
    }
    for (let i = 0; i < n; i++) {
      const r = rows[i];
      const k = (pairs[2 * r] - min) >>> 0;
      if (k >= range) continue;
      const first = direct[k];
      if (first < 0 || pairs[2 * r + 1] !== 0) continue;
      for (let j = first; j >= 0; j = firstOnly ? -1 : chain[j]) this.push(count++, i, j);
    }
    return count;
  }

  /**
   * matchInt64 over an index whose build keys are unique (part, customer, orders by their keys):
   * at most one partner per probe row, so the pair arrays are sized once and no chain is
   * read. The probe rows a selective filter leaves are scattered over their page, each key a cache
   * miss; with nothing else in the loop the processor keeps several of them in flight.
   */
  private matchInt64Unique(n: number, pairs: Int32Array, rows: Int32Array | null, direct: Int32Array, min: number, range: number, bits: Int32Array | null, ranks: Int32Array | null): number {
    this.reservePairs(n);
    const probe = this.pairsProbe;
    const build = this.pairsBuild;
    // The same loop in WebAssembly when the keys lie in the column arena.
    const matched = probeUniqueInt64(pairs, rows, n, this.wasmKeyIndex(false), probe, build);
    if (matched >= 0) return matched;
    let count = 0;
    // Loops of their own with and without `rows` (a per-row choice measured ~25% slower). A key
    // with a high word is outside the index (tested only where it is cheap and predictable).
    if (bits !== null && ranks !== null) {
      // A rank index is over sparse keys, mostly absent: branching past them beats computing a
      // rank for every row (12% hits: 4.9 vs 8.3 ns a row).
      if (rows === null) {
        for (let i = 0; i < n; i++) {
          const k = (pairs[2 * i] - min) >>> 0;
          if (k >= range) continue;
          const word = bits[k >>> 5];
          const bit = 1 << (k & 31);
          if ((word & bit) === 0 || pairs[2 * i + 1] !== 0) continue;
          probe[count] = i;
          build[count] = direct[ranks[k >>> 5] + bitCount(word & (bit - 1))];
          count++;
        }
        return count;
      }
      for (let i = 0; i < n; i++) {
        const r = rows[i];
        const k = (pairs[2 * r] - min) >>> 0;
        if (k >= range) continue;
        const word = bits[k >>> 5];
        const bit = 1 << (k & 31);
        if ((word & bit) === 0 || pairs[2 * r + 1] !== 0) continue;
        probe[count] = i;
        build[count] = direct[ranks[k >>> 5] + bitCount(word & (bit - 1))];
        count++;
      }
      return count;
    }
    // A direct index: whether the key is there is added to the count rather than branched on (a
    // half-filled index made that branch a coin toss: 7.8 → 6.0 ns a row); the pair is written
    // either way and kept or overwritten. Over an index at most 1/16 full the branch is mostly
    // not taken and predicted, and skipping the two stores wins (Q11's partsupp into 396 of
    // 10k suppliers: 3.1 → 2.0 ns a row).
    if (rows === null && this.table.rowCount * 16 <= range) {
      for (let i = 0; i < n; i++) {
        const k = (pairs[2 * i] - min) >>> 0;
        if (k >= range) continue;
        const j = direct[k];
        if (j < 0 || pairs[2 * i + 1] !== 0) continue;
        probe[count] = i;
        build[count] = j;
        count++;
      }
      return count;
    }
    if (rows === null) {
      for (let i = 0; i < n; i++) {
        const k = (pairs[2 * i] - min) >>> 0;
        if (k >= range || pairs[2 * i + 1] !== 0) continue;
        const j = direct[k];
        probe[count] = i;
        build[count] = j;
        count += 1 + (j >> 31);
      }
      return count;
    }
    for (let i = 0; i < n; i++) {
      const r = rows[i];
      const k = (pairs[2 * r] - min) >>> 0;
      if (k >= range || pairs[2 * r + 1] !== 0) continue;
      const j = direct[k];
      probe[count] = i;
      build[count] = j;
      count += 1 + (j >> 31);
    }
    return count;
  }

  /**
   * Two numeric keys, one of them in the build's key index: the index yields the rows with an
   * equal `indexed` key, and the `other` key is compared on each (partsupp: four rows per partkey).
   */
  private matchIndexedPair(n: number, indexed: Float64Array, other: Float64Array, nullsIndexed: Uint8Array | null, nullsOther: Uint8Array | null, buildOther: Float64Array): number {
    const { direct, chain, min, range, bits, ranks } = this.keyIndex();
    const firstOnly = this.firstOnly;
    let count = 0;
    for (let i = 0; i < n; i++) {
      if ((nullsIndexed !== null && nullsIndexed[i] === 1) || (nullsOther !== null && nullsOther[i] === 1)) continue;
      const slot = keySlot(indexed[i] - min, range, bits, ranks);
      if (slot < 0) continue;
      const y = other[i];
      for (let j = direct[slot]; j >= 0; j = chain[j]) {
        if (buildOther[j] !== y) continue;
        this.push(count++, i, j);
        if (firstOnly) break;
      }
    }
    return count;
  }

  /**
   * Two NULL-free bigint probe keys into a build indexed on one of them (JoinTable.indexedKey):
   * their Int64 pairs, to be read in place by matchInt64Pair; null for any other probe.
   */
  private int64KeyPair(page: Page): { indexed: Int32Array; other: Int32Array; buildOther: Float64Array } | null {
    const t = this.table;
    // Low-word offsets only (keyIndex); other builds take the general path.
    if (this.probeKeys.length !== 2 || t.indexedKey < 0 || t.direct === null || !this.keyIndex().lowWord) return null;
    const k = t.indexedKey;
    const buildOther = t.numericKeys[1 - k];
    const indexed = page.columns[this.probeKeys[k]];
    const other = page.columns[this.probeKeys[1 - k]];
    const pairs = (c: Column): Int32Array | null => (c.kind === 'fixed' && c.validity === null && c.type.id === 'bigint' ? (c.values as Int32Array) : null);
    const indexedPairs = pairs(indexed);
    const otherPairs = pairs(other);
    if (buildOther === null || indexedPairs === null || otherPairs === null) return null;
    return { indexed: indexedPairs, other: otherPairs, buildOther };
  }

  /**
   * matchIndexedPair over NULL-free Int64 keys read in place (through `rows` when a filter selected
   * them): the indexed key's low word is looked up first, and the other key is read only for rows
   * the index holds. Q20's 900k selected lineitems into 8k partsupp rows thereby read one key
   * column instead of converting both to doubles first (two gathers over 48 MB columns).
   */
  private matchInt64Pair(n: number, indexed: Int32Array, other: Int32Array, buildOther: Float64Array, rows: Int32Array | null): number {
    const { direct, chain, min, range, bits, ranks } = this.keyIndex();
    const firstOnly = this.firstOnly;
    // The same loop in WebAssembly when the keys lie in (or can be copied into) the column arena.
    const found = probeChainedInt64(indexed, rows, n, this.wasmKeyIndex(firstOnly), { pairs: other, buildOther });
    if (found !== null) return this.takePairs(found);
    let count = 0;
    for (let i = 0; i < n; i++) {
      const r = rows === null ? i : rows[i];
      const k = (indexed[2 * r] - min) >>> 0;
      if (k >= range) continue;
      let slot = k;
      if (bits !== null && ranks !== null) {
        const word = bits[k >>> 5];
        const bit = 1 << (k & 31);
        if ((word & bit) === 0) continue;
        slot = ranks[k >>> 5] + bitCount(word & (bit - 1));
      }
      const first = direct[slot];
      if (first < 0 || indexed[2 * r + 1] !== 0) continue;
      const y = other[2 * r + 1] * 4294967296 + (other[2 * r] >>> 0);
      for (let j = first; j >= 0; j = chain[j]) {
        if (buildOther[j] !== y) continue;
        this.push(count++, i, j);
        if (firstOnly) break;
      }
    }
    return count;
  }

  /**
   * A mark join without a residual condition: flags every build row a NULL-free Int64 key finds,
   * in the probe loop itself (no pairs written and read back; Q22's 1.5M orders marking customers).
   */
  private markInt64(n: number, pairs: Int32Array, rows: Int32Array | null, matched: Uint8Array): void {
    const { direct, chain, min, range, bits, ranks, lowWord } = this.keyIndex();
    // The build rows a key finds, from the wasm probe (when the keys lie in or can be copied into
    // the column arena), then flagged here.
    if (lowWord) {
      const index = this.wasmKeyIndex(false);
      const found = this.table.directUnique ? probeUniqueInt64Pairs(pairs, rows, n, index) : probeChainedInt64(pairs, rows, n, index);
      if (found !== null) {
        const build = found.build;
        for (let c = 0; c < found.count; c++) {
          const j = build[c];
          if (matched[j] === 0) matched[j] = 1;
        }
        return;
      }
    }
    if (bits === null && this.table.directUnique && lowWord) {
      // A direct index of unique keys (Q22's customers marked by 1.5M orders): one slot per probe,
      // no chain, integer arithmetic on the low word (matchInt64Unique's reasoning), loops of
      // their own with and without `rows`.
      if (rows === null) {
        for (let i = 0; i < n; i++) {
          const k = (pairs[2 * i] - min) >>> 0;
          if (k >= range || pairs[2 * i + 1] !== 0) continue;
          const j = direct[k];
          if (j >= 0 && matched[j] === 0) matched[j] = 1;
        }
        return;
      }
      for (let i = 0; i < n; i++) {
        const r = rows[i];
        const k = (pairs[2 * r] - min) >>> 0;
        if (k >= range || pairs[2 * r + 1] !== 0) continue;
        const j = direct[k];
        if (j >= 0 && matched[j] === 0) matched[j] = 1;
      }
      return;
    }
    for (let i = 0; i < n; i++) {
      const r = rows === null ? i : rows[i];
      const slot = keySlot(pairs[2 * r + 1] * 4294967296 + (pairs[2 * r] >>> 0) - min, range, bits, ranks);
      if (slot < 0) continue;
      // Set once: both workers' probes share the flags, and a store into a line the other core
      // holds takes the line away from it (false sharing) on every store, set or not.
      for (let j = direct[slot]; j >= 0; j = chain[j]) if (matched[j] === 0) matched[j] = 1;
    }
  }

  /** Two numeric keys (e.g. partkey, suppkey): hashed and compared inline. */
  private matchTwoNumbers(n: number, a: Float64Array, b: Float64Array, na: Uint8Array | null, nb: Uint8Array | null, ba: Float64Array, bb: Float64Array): number {
    const t = this.table;
    const mask = t.buckets.length - 1;
    const buckets = t.buckets;
    const nextRow = t.next;
    const hashes = t.hashes;
    const firstOnly = this.firstOnly;
    let count = 0;
    for (let i = 0; i < n; i++) {
      if ((na !== null && na[i] === 1) || (nb !== null && nb[i] === 1)) continue;
      const x = a[i];
      const y = b[i];
      const h = mixNumber(mixNumber(ROW_HASH_SEED, x), y);
      for (let j = buckets[h & mask]; j >= 0; j = nextRow[j]) {
        if (hashes[j] === h && ba[j] === x && bb[j] === y) {
          this.push(count++, i, j);
          if (firstOnly) break;
        }
      }
    }
    return count;
  }

  /**
   * The pairs as the residual filter sees them (probe ++ build columns): only the columns it reads
   * are gathered; the others are empty stand-ins of the same kind, which its kernel never touches.
   */
  private filterCandidates(page: Page, probeIdx: Int32Array, buildIdx: Int32Array, count: number): Page {
    const t = this.table;
    const width = page.columns.length;
    const used = (this.filterColumns ??= usedColumns([this.filter as Expr]));
    const columns: Column[] = [];
    for (let c = 0; c < width + t.types.length; c++) {
      const source = c < width ? page.columns[c] : t.page.columns[c - width];
      if (used.has(c)) columns.push(c < width ? gatherColumn(source, probeIdx, count) : gatherWithNulls(source, t.types[c - width], buildIdx, count));
      else columns.push(source === undefined ? nullColumn(t.types[c - width], 0) : ({ ...source, length: 0, validity: null } as Column));
    }
    return { length: count, columns };
  }

  private filterColumns: Set<number> | undefined;

  /**
   * For each build column, the probe column holding the same values on every joined row of an
   * inner join: a build key compared with a probe key of the same exact-equality type (integers,
   * dates, strings; not doubles, whose -0 equals 0). -1 elsewhere. Read sequentially from the
   * probe page instead of gathered at random from the build (Q13's 1.5M orders ⋈ customer keys).
   */
  private probeTwins: Int32Array | undefined;

  private probeTwinOf(page: Page, buildColumn: number): number {
    if (this.probeTwins === undefined) {
      const t = this.table;
      this.probeTwins = new Int32Array(t.types.length).fill(-1);
      if (this.joinType === 'inner') {
        t.keyColumns.forEach((b, k) => {
          const probe = page.columns[this.probeKeys[k]];
          if (probe !== undefined && sameExactType(probe.type, t.types[b])) (this.probeTwins as Int32Array)[b] = this.probeKeys[k];
        });
      }
    }
    return this.probeTwins[buildColumn];
  }

  /** The joined pairs as a page: all columns, or (`selected`) only the emitted ones. */
  private combined(page: Page, probeIdx: Int32Array, buildIdx: Int32Array, count: number, selected = false): Page {
    const t = this.table;
    const width = page.columns.length;
    // Every probe row once, in order (a key into unique build keys that all match, a cross join
    // with one row): the probe's columns are the output's as they are, strings and all.
    const whole = isIdentity(probeIdx, count);
    const probeColumn = (col: Column): Column => (whole && col.length === count ? col : gatherColumn(col, probeIdx, count));
    const gather = (c: number): Column => {
      if (c < width) return probeColumn(page.columns[c]);
      const twin = this.probeTwinOf(page, c - width);
      return twin >= 0 ? probeColumn(page.columns[twin]) : gatherWithNulls(t.page.columns[c - width], t.types[c - width], buildIdx, count);
    };
    if (selected && this.output !== null) return { length: count, columns: this.output.map(gather) };
    const columns: Column[] = [];
    for (let c = 0; c < width + t.types.length; c++) columns.push(gather(c));
    return { length: count, columns };
  }

  addInput(page: Page): void {
    recordInput(this.stats, page);
    this.probe(page.length, page.columns, null);
  }

  /**
   * Whether one probe row may pair with many build rows: a join without keys (a cross join, or one
   * on a condition that is not an equality) pairs every probe row with every build row before the
   * condition, and repeated build keys (lineitem joined to itself on returnflag) multiply too. A
   * page of 8k rows could then form hundreds of millions of pairs at once (gigabytes: 8.8 GB RSS
   * before this existed). Only when the build's longest chain (JoinTable.maxChain) times the probe
   * rows passes MAX_PAIRS_AT_ONCE; a semi/anti join that stops at the first match never does.
   */
  private mayFanOut(probeRows: number): boolean {
    if (this.probeKeys.length === 0) return this.table.rowCount * probeRows > MAX_PAIRS_AT_ONCE;
    if (this.firstOnly || this.table.directUnique) return false;
    // maxChain is a worst case (a hash bucket's colliding keys count too): split only pages that
    // could pass 16M pairs (128 MB of pair indexes). Q9's probe of partsupp (chains of up to 5,
    // 250k-row pages) stays whole.
    return this.table.maxChain * probeRows > 16 * MAX_PAIRS_AT_ONCE;
  }

  /**
   * Probes `count` rows (physical rows `sel`, or 0..count-1) and passes the output on: in one part,
   * or, when they may fan out (mayFanOut), in parts whose pairs stay near MAX_PAIRS_AT_ONCE: a
   * first part of FIRST_PART_ROWS rows measures the pairs a row forms, and later parts are sized by
   * it (most joins then take the rest of the page in one more part).
   */
  private probe(count: number, columns: Column[], sel: Int32Array | null): void {
    const inParts = this.mayFanOut(count);
    let pairsPerRow = !inParts ? 0 : this.probeKeys.length === 0 ? Math.max(1, this.table.rowCount) : 0;
    for (let from = 0; from < count; ) {
      // A cross product's parts can run for minutes: a stopped query ends here.
      if (inParts) checkpoint();
      const want = !inParts ? count : pairsPerRow === 0 ? FIRST_PART_ROWS : Math.floor(MAX_PAIRS_AT_ONCE / pairsPerRow);
      const n = Math.min(count - from, Math.max(1, want));
      // A part of a plain page is its rows copied (a few columns of n rows: cheaper than mapping
      // every pair back through a selection); a part of a selection is a slice of it.
      const whole = from === 0 && n === count;
      const part: Page = sel !== null || whole ? { length: n, columns } : { length: n, columns: columns.map((c) => sliceColumn(c, from, n)) };
      const rows = sel === null ? null : whole ? sel : sel.subarray(from, from + n);
      const start = nowNanos();
      const before = this.pairsFormed;
      const out = this.process(part, rows);
      this.stats.addInputNanos += nowNanos() - start;
      pairsPerRow = Math.max(pairsPerRow, 1, (this.pairsFormed - before) / n);
      if (out !== null && out.length > 0) {
        recordOutput(this.stats, out);
        this.next(out);
      }
      from += n;
    }
  }

  /**
   * Probes with the rows `sel` selects from an upstream filter's input page (all when null), the
   * columns being `projections` of it (column references only): probe keys are read through the
   * selection and other columns are gathered for matched rows only, never for the rows the join
   * drops. Returns the nanoseconds spent here and downstream, or -1 (nothing done) when a
   * projection computes a value.
   */
  addSelected(page: Page, sel: Int32Array | null, count: number, projections: readonly Expr[]): number {
    if (!projections.every((e) => e.kind === 'column')) return -1;
    const start = nowNanos();
    const columns = projections.map((e) => page.columns[(e as { index: number }).index]);
    this.stats.addInputCalls++;
    this.stats.inputPositions += count;
    this.probe(count, columns, sel);
    return nowNanos() - start;
  }

  /** The probe keys of a (virtual, with `rows`) page; NULL-free numeric keys are read through `rows` in one pass. */
  private probeKeyValues(page: Page, rows: Int32Array | null): KeyReader {
    const columns = this.probeKeys.map((k) => page.columns[k]);
    const scratch = keyScratch(columns.length, page.length);
    if (rows === null) return readKeys(columns, scratch);
    if (columns.every((c) => c.kind === 'fixed' && c.validity === null)) {
      return { numbers: columns.map((c, k) => numericValuesAt(c, rows, page.length, scratch[k])), strings: columns.map(() => null), nulls: columns.map(() => null) };
    }
    return readKeys(
      columns.map((c) => gatherColumn(c, rows, page.length)),
      scratch,
    );
  }

  /**
   * Joins one probe page. With `rows`, `page` is virtual: row i of it is row rows[i] of its
   * full-length columns, so gathers compose the two indexes.
   */
  private process(page: Page, rows: Int32Array | null): Page | null {
    const t = this.table;
    // One NULL-free bigint key into a direct or rank index: read the Int64 pairs in the probe loop
    // itself instead of converting the whole key column to doubles first.
    const keyColumn = this.probeKeys.length === 1 ? page.columns[this.probeKeys[0]] : null;
    const int64Keys = t.direct !== null && keyColumn !== null && keyColumn.kind === 'fixed' && keyColumn.validity === null && keyColumn.type.id === 'bigint' ? (keyColumn.values as Int32Array) : null;
    if (int64Keys !== null && this.joinType === 'mark' && this.filter === null && t.matched !== null) {
      this.markInt64(page.length, int64Keys, rows, t.matched);
      return null;
    }
    const int64Pair = int64Keys === null ? this.int64KeyPair(page) : null;
    const probe = this.probeKeys.length && int64Keys === null && int64Pair === null ? this.probeKeyValues(page, rows) : null;
    const physical = (idx: Int32Array, n: number): Int32Array => {
      if (rows === null) return idx;
      const out = new Int32Array(n);
      for (let k = 0; k < n; k++) out[k] = rows[idx[k]];
      return out;
    };
    let count =
      int64Keys !== null
        ? this.matchInt64(page.length, int64Keys, rows)
        : int64Pair !== null
          ? this.matchInt64Pair(page.length, int64Pair.indexed, int64Pair.other, int64Pair.buildOther, rows)
          : this.match(page, probe);
    this.pairsFormed += count;
    let probeIdx = this.pairsProbe.subarray(0, count);
    let buildIdx = this.pairsBuild.subarray(0, count);
    if (this.filter && count > 0) {
      const candidates = this.filterCandidates(page, physical(probeIdx, count), buildIdx, count);
      const sel = new Int32Array(count);
      const kept = compileFilter(this.filter, shapesOf(candidates))(candidates.columns, count, sel);
      const p = new Int32Array(kept);
      const b = new Int32Array(kept);
      for (let k = 0; k < kept; k++) {
        p[k] = probeIdx[sel[k]];
        b[k] = buildIdx[sel[k]];
      }
      probeIdx = p;
      buildIdx = b;
      count = kept;
    }
    if (t.matched) {
      const matched = t.matched;
      for (let k = 0; k < count; k++) if (matched[buildIdx[k]] === 0) matched[buildIdx[k]] = 1;
    }
    if (this.singleMatch) {
      for (let k = 1; k < count; k++) {
        if (probeIdx[k] === probeIdx[k - 1]) throw new EngineError('SUBQUERY_MULTIPLE_ROWS', 'Scalar sub-query has returned multiple rows');
      }
    }
    switch (this.joinType) {
      case 'mark':
        // Matches were recorded in the table's shared flags; the stage emits the build rows.
        return null;
      case 'inner':
        return count === 0 ? null : this.combined(page, physical(probeIdx, count), buildIdx, count, true);
      case 'left':
      case 'full': {
        const hit = new Uint8Array(page.length);
        for (let k = 0; k < count; k++) hit[probeIdx[k]] = 1;
        let total = count;
        for (let i = 0; i < page.length; i++) if (!hit[i]) total++;
        const p = new Int32Array(total);
        const b = new Int32Array(total);
        // Keep probe order: walk probe rows, emitting their pairs or one NULL-extended row.
        let k = 0;
        let o = 0;
        for (let i = 0; i < page.length; i++) {
          if (!hit[i]) {
            p[o] = i;
            b[o++] = -1;
            continue;
          }
          while (k < count && probeIdx[k] === i) {
            p[o] = i;
            b[o++] = buildIdx[k++];
          }
        }
        return this.combined(page, physical(p, total), b, total, true);
      }
      case 'semi':
      case 'anti': {
        // Every match loop walks the probe rows in order, so probeIdx ascends: a semi join keeps its
        // distinct values, an anti join the rows between them (no per-row flags to fill and scan).
        const keep = new Int32Array(this.joinType === 'semi' ? count : page.length);
        let kept = 0;
        if (this.joinType === 'semi') {
          for (let k = 0; k < count; k++) if (k === 0 || probeIdx[k] !== probeIdx[k - 1]) keep[kept++] = probeIdx[k];
        } else {
          const checkNulls = this.nullAware && t.rowCount > 0;
          // x NOT IN (...) is NULL (not true) when the list holds a NULL.
          if (checkNulls && t.hasNullKey) return null;
          let k = 0;
          for (let i = 0; i < page.length; i++) {
            if (k < count && probeIdx[k] === i) {
              while (k < count && probeIdx[k] === i) k++;
              continue;
            }
            // ... or when x is NULL.
            if (checkNulls && probe && hashRow(probe, i) === undefined) continue;
            keep[kept++] = i;
          }
        }
        if (kept === 0) return null;
        if (kept === page.length && rows === null) return page;
        const sel = physical(keep.subarray(0, kept), kept);
        return { length: kept, columns: page.columns.map((c) => gatherColumn(c, sel, kept)) };
      }
    }
  }

  finish(): void {
    this.stats.finishCalls++;
  }

  isDone(): boolean {
    return false;
  }
}
