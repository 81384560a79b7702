// Maps rows to dense group ids by their key values: an open-addressing hash table in typed arrays.
// Keys are numbers (strings are interned to numbers first; dictionary columns are interned once per
// dictionary), with a NULL flag per key, so one table serves every key type.

import { allocShared, VarcharBuilder, type Column, type VarcharColumn } from '../data/page.js';
import type { SqlType } from '../data/types.js';
import { columnFromNumbers, columnFromStrings } from './build-columns.js';
import { nullFlags, numericValues, stringValues } from './column-readers.js';
import { gatherColumn } from './gather.js';
import { hashNumber } from './join-table.js';
import { wasmInt64Bounds } from './compile/wasm-bounds.js';

function mix(h: number, x: number): number {
  return Math.imul(h ^ hashNumber(x), 0x01000193) | 0;
}

/** FNV-1a over a value's UTF-8 bytes. */
export function bytesHash(data: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let b = start; b < end; b++) h = Math.imul(h ^ data[b], 0x01000193);
  return h | 0;
}

/** Each dictionary's entries hashed once per thread. */
const dictionaryHashes = new WeakMap<object, Int32Array>();

/**
 * Per-row hashes of one key column's values, the same for equal values whatever page or layout
 * they come in: numbers by value (`numbers`: the column's numericValues when the caller has them),
 * strings by their UTF-8 bytes (dictionary entries hashed once per dictionary). NULL rows get
 * whatever their slot holds; callers test the NULL flags.
 */
export function valueHashes(col: Column, numbers: Float64Array | null, n: number): Int32Array {
  const out = new Int32Array(n);
  if (col.kind === 'fixed') {
    const v = numbers ?? numericValues(col);
    for (let r = 0; r < n; r++) out[r] = hashNumber(v[r]);
    return out;
  }
  if (col.kind === 'dict') {
    const d = col.dictionary;
    let hashes = dictionaryHashes.get(d);
    if (!hashes) {
      hashes = new Int32Array(d.length);
      for (let i = 0; i < d.length; i++) hashes[i] = bytesHash(d.data, d.offsets[i], d.offsets[i + 1]);
      dictionaryHashes.set(d, hashes);
    }
    const idx = col.indices;
    for (let r = 0; r < n; r++) out[r] = hashes[idx[r]];
    return out;
  }
  for (let r = 0; r < n; r++) out[r] = bytesHash(col.data, col.offsets[r], col.offsets[r + 1]);
  return out;
}

/** A NULL key's contribution to a row hash. */
const NULL_KEY_HASH = 0x5bd1e995;

/**
 * Each row's hash over several key columns (valueHashes folded column by column; a NULL key
 * contributes a constant): equal key tuples hash alike whatever their pages' layouts.
 * `numbers[c]`: column c's numericValues when the caller has them.
 */
export function keyRowHashes(keys: readonly Column[], numbers: readonly (Float64Array | null)[], n: number): Int32Array {
  const h = new Int32Array(n).fill(0x2545f491);
  for (let c = 0; c < keys.length; c++) {
    const v = valueHashes(keys[c], numbers[c], n);
    const nulls = nullFlags(keys[c]);
    if (nulls === null) for (let r = 0; r < n; r++) h[r] = Math.imul(h[r] ^ v[r], 0x01000193);
    else for (let r = 0; r < n; r++) h[r] = Math.imul(h[r] ^ (nulls[r] === 1 ? NULL_KEY_HASH : v[r]), 0x01000193);
  }
  return h;
}

/** Fewer rows than this are grouped by hash until a direct index exists (see directIds). */
const DIRECT_MIN_ROWS = 1024;

export class GroupByHash {
  /** Per key: the interned strings (for string keys) */
  readonly strings: (string[] | null)[];
  private readonly stringIds: (Map<string, number> | null)[];
  private readonly dictTranslation: WeakMap<object, Int32Array>[];
  /** Per key: each group's key value and NULL flag. */
  keyValues: Float64Array[];
  keyNulls: Uint8Array[];
  private slots: Int32Array;
  private hashes: Int32Array;
  /**
   * One integer key: key - denseMin -> group id + 1, 0 for a key not seen (see singleNumericIds);
   * null when not used, undefined until decided. Zero for "none" lets a new index come from the
   * allocator's zeroed memory: a fill(-1) per driver of Q11's partsupp aggregation (2 × 16k-64k
   * slots, one index and one widening per driver) was a third of its group-by time.
   */
  private dense: Int32Array | null | undefined = undefined;
  private denseMin = 0;
  /** Rows grouped by the one numeric key so far: how wide its direct index may grow (see widenDense). */
  private numericRows = 0;
  groupCount = 0;
  /** A global aggregation's group ids (all 0), reused page after page. */
  private zeroIds = new Int32Array(0);
  /** Groups in the hash table (all but those only the direct index holds): its load. */
  private hashedGroups = 0;

  constructor(readonly stringKey: readonly boolean[]) {
    const k = stringKey.length;
    this.strings = stringKey.map((s) => (s ? [] : null));
    this.stringIds = stringKey.map((s) => (s ? new Map() : null));
    this.dictTranslation = stringKey.map(() => new WeakMap());
    this.keyValues = Array.from({ length: k }, () => new Float64Array(64));
    this.keyNulls = Array.from({ length: k }, () => new Uint8Array(64));
    this.slots = new Int32Array(128).fill(-1);
    this.hashes = new Int32Array(64);
  }

  private intern(key: number, s: string): number {
    const ids = this.stringIds[key] as Map<string, number>;
    let id = ids.get(s);
    if (id === undefined) {
      id = ids.size;
      ids.set(s, id);
      (this.strings[key] as string[]).push(s);
    }
    return id;
  }

  /** Key codes for one key column of a page. */
  private codes(key: number, col: Column): Float64Array {
    if (!this.stringKey[key]) return numericValues(col);
    const n = col.length;
    const out = new Float64Array(n);
    if (col.kind === 'dict') {
      const tr = this.translation(key, col);
      const idx = col.indices;
      for (let i = 0; i < n; i++) out[i] = tr[idx[i]];
    } else {
      const strings = stringValues(col);
      for (let i = 0; i < n; i++) out[i] = this.intern(key, strings[i]);
    }
    return out;
  }

  // ---- The leading-key path: hash one numeric key, verify the others against per-group witnesses.
  /** Decided on the first page: undefined = not yet, -1 = not used, else the leading key's position. */
  private lead: number | undefined;
  /** Raw UTF-8 witness bytes of varchar keys, and each group's (start, length) per varchar key. */
  private arena = new Uint8Array(0);
  private arenaLength = 0;
  private varLengths: (Int32Array | null)[] = [];
  /** How each key's per-group witness is kept: a number, an interned string id, or raw bytes. */
  private witness: ('num' | 'dict' | 'bytes')[] = [];

  private chooseLead(keys: readonly Column[]): number {
    // One plain varchar key: grouped by its bytes, witnessed in the arena and given back as bytes,
    // not decoded, interned in a Map and encoded again (count(DISTINCT name) over sf1's 150k
    // customers: ~1 µs a row in the partial step and ~3 in the final one, whose input was then a
    // 150k-entry dictionary).
    if (keys.length < 2) return keys.length === 1 && keys[0]!.kind === 'varchar' ? 0 : -1;
    if (keys.some((c) => c.kind === 'fixed' && c.type.id === 'boolean')) return -1;
    return keys.findIndex((c) => c.kind === 'fixed');
  }

  private leadIds(keys: readonly Column[], n: number, ids: Int32Array): void {
    const nulls = keys.map((c) => nullFlags(c));
    if (this.witness.length === 0) {
      // Dictionary keys are witnessed by interned id (a number compare per probe), plain strings by bytes.
      this.witness = keys.map((c) => (c.kind === 'fixed' ? 'num' : c.kind === 'dict' ? 'dict' : 'bytes'));
      this.varLengths = keys.map((c, i) => (this.witness[i] === 'bytes' ? new Int32Array(64) : null));
    }
    const nums = keys.map((c, i) => (c.kind === 'fixed' ? numericValues(c) : this.witness[i] === 'dict' ? this.codes(i, c) : null));
    let mask = this.slots.length - 1;
    // Every key contributes to the hash (a leading key alone can have few values): numbers by
    // value, strings by their bytes (dictionary entries hashed once per dictionary).
    const hashes = keyRowHashes(keys, keys.map((c, i) => (c.kind === 'fixed' ? nums[i] : null)), n);
    if (nulls.every((f) => f === null) && this.witness.every((w) => w !== 'bytes')) {
      if (keys.length === 2 || keys.length === 3) this.numericLeadIds(keys, nums as Float64Array[], hashes, n, ids);
      else this.manyNumericLeadIds(keys, nums as Float64Array[], hashes, n, ids);
      return;
    }
    for (let r = 0; r < n; r++) {
      const h = hashes[r];
      let slot = h & mask;
      let found = -1;
      for (;;) {
        const g = this.slots[slot];
        if (g === -1) break;
        if (this.hashes[g] === h && this.sameKeys(keys, nulls, nums, r, g)) {
          found = g;
          break;
        }
        slot = (slot + 1) & mask;
      }
      if (found < 0) {
        found = this.insertWitness(keys, nulls, nums, r, h, slot);
        mask = this.slots.length - 1;
      }
      ids[r] = found;
    }
  }

  /**
   * leadIds for two or three keys witnessed as numbers (numbers, dictionary strings by interned
   * id) on a page without NULLs: the table's arrays in locals, each key compared inline, no NULL
   * flags read (the general loop calls sameKeys, which tests NULL flags and the witness kind per
   * key and row: Q16's brand, type, size).
   */
  private numericLeadIds(keys: readonly Column[], nums: readonly Float64Array[], hashes: Int32Array, n: number, ids: Int32Array): void {
    const a = nums[0];
    const b = nums[1];
    const c = nums.length === 3 ? nums[2] : nums[1];
    const nulls = keys.map(() => null);
    let slots = this.slots;
    let mask = slots.length - 1;
    let groupHashes = this.hashes;
    let [va, vb] = this.keyValues;
    let vc = this.keyValues[nums.length - 1];
    for (let r = 0; r < n; r++) {
      const h = hashes[r];
      const x = a[r];
      const y = b[r];
      const z = c[r];
      let slot = h & mask;
      let found = -1;
      for (;;) {
        const g = slots[slot];
        if (g === -1) break;
        // A group with a NULL key holds NaN there (insertWitness): it never equals a row's key.
        if (groupHashes[g] === h && va[g] === x && vb[g] === y && vc[g] === z) {
          found = g;
          break;
        }
        slot = (slot + 1) & mask;
      }
      if (found < 0) {
        found = this.insertWitness(keys, nulls, nums, r, h, slot);
        // Inserting may have grown (replaced) any of these arrays.
        slots = this.slots;
        mask = slots.length - 1;
        groupHashes = this.hashes;
        [va, vb] = this.keyValues;
        vc = this.keyValues[nums.length - 1];
      }
      ids[r] = found;
    }
  }

  /**
   * numericLeadIds for four or more keys: the keys compared in a loop over the columns, only for
   * slots whose hash matches (the general loop's sameKeys tests NULL flags and the witness kind
   * of every key per probe: 4 numeric keys over sf1 lineitem took 2.8 times 3 keys' time).
   */
  private manyNumericLeadIds(keys: readonly Column[], nums: readonly Float64Array[], hashes: Int32Array, n: number, ids: Int32Array): void {
    const k = nums.length;
    const nulls = keys.map(() => null);
    let slots = this.slots;
    let mask = slots.length - 1;
    let groupHashes = this.hashes;
    let values = this.keyValues;
    for (let r = 0; r < n; r++) {
      const h = hashes[r];
      let slot = h & mask;
      let found = -1;
      for (;;) {
        const g = slots[slot];
        if (g === -1) break;
        if (groupHashes[g] === h) {
          let c = 0;
          while (c < k && values[c][g] === nums[c][r]) c++;
          if (c === k) {
            found = g;
            break;
          }
        }
        slot = (slot + 1) & mask;
      }
      if (found < 0) {
        found = this.insertWitness(keys, nulls, nums, r, h, slot);
        // Inserting may have grown (replaced) any of these arrays.
        slots = this.slots;
        mask = slots.length - 1;
        groupHashes = this.hashes;
        values = this.keyValues;
      }
      ids[r] = found;
    }
  }

  /** One reused span: row bytes are looked up per compared row, which must not allocate. */
  private readonly span: { data: Uint8Array; start: number; end: number } = { data: new Uint8Array(0), start: 0, end: 0 };

  /** The UTF-8 bytes of row r of a string column (plain or dictionary-encoded). */
  private rowBytes(col: Column, r: number): { readonly data: Uint8Array; readonly start: number; readonly end: number } {
    const span = this.span;
    if (col.kind === 'dict') {
      const d = col.dictionary;
      const i = col.indices[r];
      span.data = d.data;
      span.start = d.offsets[i];
      span.end = d.offsets[i + 1];
    } else if (col.kind === 'varchar') {
      span.data = col.data;
      span.start = col.offsets[r];
      span.end = col.offsets[r + 1];
    } else throw new Error('a string key column must be utf8 or dictionary encoded');
    return span;
  }

  private sameKeys(keys: readonly Column[], nulls: readonly (Uint8Array | null)[], nums: readonly (Float64Array | null)[], r: number, g: number): boolean {
    for (let c = 0; c < keys.length; c++) {
      const isNull = nulls[c] !== null && (nulls[c] as Uint8Array)[r] === 1;
      if (isNull !== (this.keyNulls[c][g] === 1)) return false;
      if (isNull) continue;
      if (this.witness[c] !== 'bytes') {
        if ((nums[c] as Float64Array)[r] !== this.keyValues[c][g]) return false;
        continue;
      }
      const { data, start, end } = this.rowBytes(keys[c], r);
      const len = end - start;
      if (len !== (this.varLengths[c] as Int32Array)[g]) return false;
      const at = this.keyValues[c][g];
      for (let b = 0; b < len; b++) if (data[start + b] !== this.arena[at + b]) return false;
    }
    return true;
  }

  private insertWitness(keys: readonly Column[], nulls: readonly (Uint8Array | null)[], nums: readonly (Float64Array | null)[], r: number, h: number, slot: number): number {
    const g = this.groupCount++;
    this.ensureCapacity(this.groupCount);
    this.hashes[g] = h;
    for (let c = 0; c < keys.length; c++) {
      const isNull = nulls[c] !== null && (nulls[c] as Uint8Array)[r] === 1;
      this.keyNulls[c][g] = isNull ? 1 : 0;
      if (isNull) {
        // NaN equals nothing: numericLeadIds needs no NULL flags to never match this group.
        if (this.witness[c] !== 'bytes') this.keyValues[c][g] = NaN;
        continue;
      }
      if (this.witness[c] !== 'bytes') {
        this.keyValues[c][g] = (nums[c] as Float64Array)[r];
        continue;
      }
      const { data, start, end } = this.rowBytes(keys[c], r);
      const len = end - start;
      if (this.arenaLength + len > this.arena.length) {
        // Made on the first varchar witness: most group-bys have none, and one is made per driver.
        let size = Math.max(1 << 16, this.arena.length * 2);
        while (size < this.arenaLength + len) size *= 2;
        const next = new Uint8Array(size);
        next.set(this.arena.subarray(0, this.arenaLength));
        this.arena = next;
      }
      for (let b = 0; b < len; b++) this.arena[this.arenaLength + b] = data[start + b];
      this.keyValues[c][g] = this.arenaLength;
      let lengths = this.varLengths[c] as Int32Array;
      if (g >= lengths.length) {
        const grown = new Int32Array(Math.max(g + 1, lengths.length * 2));
        grown.set(lengths);
        lengths = grown;
        this.varLengths[c] = grown;
      }
      lengths[g] = len;
      this.arenaLength += len;
    }
    this.slots[slot] = g;
    if (++this.hashedGroups * 2 > this.slots.length) this.rehash();
    return g;
  }

  /** The grouped values of key `k` as an output column, one row per group. */
  keyColumn(k: number, type: SqlType, n: number): Column {
    const values = this.keyValues[k];
    const nulls = this.keyNulls[k];
    const lengths = this.varLengths[k];
    if (lengths) {
      const b = new VarcharBuilder(type, n, this.arenaLength);
      for (let g = 0; g < n; g++) {
        if (nulls[g]) b.appendNull();
        else b.appendBytes(this.arena, values[g], values[g] + lengths[g]);
      }
      return b.finish();
    }
    const strings = this.strings[k];
    if (strings) {
      // Interned strings make the dictionary; each group's key is its string's id.
      const dictionary = columnFromStrings(type, strings, strings.length) as VarcharColumn;
      const indices = allocShared(Int32Array, n);
      let validity: Uint8Array | null = null;
      for (let g = 0; g < n; g++) {
        if (nulls[g] === 0) indices[g] = values[g];
        else (validity ??= allocShared(Uint8Array, Math.ceil(n / 8)).fill(0xff))[g >> 3] &= ~(1 << (g & 7));
      }
      return { kind: 'dict', type, length: n, validity, indices, dictionary };
    }
    return columnFromNumbers(type, values, nulls, n);
  }

  /** Makes room for `rows` more groups without rehashing as they arrive. */
  reserve(rows: number): void {
    // No keys (a global aggregation): one group, no table.
    if (this.stringKey.length === 0) return;
    const want = (this.groupCount + rows) * 2;
    if (this.slots.length >= want || this.direct !== null) return;
    // One numeric key with a direct index (or before its first page decides on one): its groups
    // mostly skip the hash table.
    if (this.dense !== null && this.stringKey.length === 1 && !this.stringKey[0]) return;
    let size = this.slots.length;
    while (size < want) size *= 2;
    this.slots = new Int32Array(size);
    this.rehashInto(this.slots);
  }

  private rehashInto(slots: Int32Array): void {
    slots.fill(-1);
    const mask = slots.length - 1;
    for (let g = 0; g < this.groupCount; g++) {
      if (this.isDenseGroup(g)) continue;
      let slot = this.hashes[g] & mask;
      while (slots[slot] !== -1) slot = (slot + 1) & mask;
      slots[slot] = g;
    }
  }

  /** Dictionary index → interned id, once per dictionary. */
  private translation(key: number, col: Column): Int32Array {
    if (col.kind !== 'dict') throw new Error('translation of a non-dictionary column');
    let tr = this.dictTranslation[key].get(col.dictionary);
    if (!tr) {
      const strings = stringValues({ ...col.dictionary, length: col.dictionary.length });
      tr = new Int32Array(strings.length);
      for (let d = 0; d < strings.length; d++) tr[d] = this.intern(key, strings[d]);
      this.dictTranslation[key].set(col.dictionary, tr);
    }
    return tr;
  }

  /** Composite small code → group id, for keys that are all small dictionaries. */
  private direct: Int32Array | null = null;

  /** All keys dictionary-encoded, NULL-free and small: combine interned ids into one index. */
  private directIds(keys: readonly Column[], n: number, ids: Int32Array): boolean {
    const k = keys.length;
    // The index costs 256 KB for two keys: not for a handful of rows (a fused aggregation's few
    // key combinations per page; Q1 built one per split for 6 rows). The hash finds the same groups.
    if (this.direct === null && n < DIRECT_MIN_ROWS) return false;
    if (k > 2 || keys.some((c) => c.kind !== 'dict' || c.validity !== null)) return false;
    const trs = keys.map((c, i) => this.translation(i, c));
    if (this.strings.some((s) => s !== null && s.length > 256)) return false;
    const direct = (this.direct ??= new Int32Array(1 << (8 * k)).fill(-1));
    const idx0 = (keys[0] as { indices: Int32Array }).indices;
    const tr0 = trs[0];
    const idx1 = k > 1 ? (keys[1] as { indices: Int32Array }).indices : null;
    const tr1 = k > 1 ? trs[1] : null;
    const codes = [new Float64Array(1), new Float64Array(1)];
    for (let r = 0; r < n; r++) {
      const a = tr0[idx0[r]];
      const b = idx1 !== null ? (tr1 as Int32Array)[idx1[r]] : 0;
      const code = a | (b << 8);
      let g = direct[code];
      if (g < 0) {
        codes[0][0] = a;
        codes[1][0] = b;
        g = this.findOrInsert(mix(mix(0x12345, a), b), codes.slice(0, k), keys.map(() => null), 0);
        direct[code] = g;
      }
      ids[r] = g;
    }
    return true;
  }

  /**
   * One numeric key: open addressing on the value itself, with a direct index in front for
   * integer keys in a bounded range (`dense`: key - denseMin -> group id + 1, 0 until seen): such a
   * key costs one lookup in a small array instead of a hash, a probe and a compare (100k custkeys of
   * 1.5M orders: ~24 -> ~10 ns a row). A key inside the index's range is found by the index alone
   * and never enters the hash table (appendDenseGroup). The range is set on the first page and
   * widened for a later key beyond it while the rows seen keep it dense enough (widenDense); other
   * keys take the hash path. A NULL-free bigint column is read as its Int64 pairs in place (no
   * page-sized Float64Array per page).
   */
  private singleNumericIds(col: Column, n: number, ids: Int32Array): void {
    const pairs = col.kind === 'fixed' && col.validity === null && (col.type.id === 'bigint' || col.type.id === 'timestamp') ? (col.values as Int32Array) : null;
    const values = pairs === null ? numericValues(col) : null;
    const nulls = nullFlags(col);
    const scratch = new Float64Array(1);
    const one = [pairs === null ? (values as Float64Array) : scratch];
    const noNulls = [null];
    if (this.dense === undefined) {
      const index = denseIndexFor(pairs, values, nulls, n);
      this.dense = index?.slots ?? null;
      this.denseMin = index?.min ?? 0;
    }
    this.numericRows += n;
    let dense = this.dense;
    let denseMin = dense === null ? 0 : this.denseMin;
    let denseRange = dense === null ? 0 : dense.length;
    if (pairs !== null && dense !== null && denseMin >= 0) {
      this.denseInt64Ids(pairs, n, ids, scratch, one, noNulls);
      return;
    }
    for (let r = 0; r < n; r++) {
      if (nulls !== null && nulls[r] === 1) {
        ids[r] = this.findOrInsert(mix(0x12345, 0.5), one, [nulls], r);
        continue;
      }
      const x = pairs === null ? (values as Float64Array)[r] : pairs[2 * r + 1] * 4294967296 + (pairs[2 * r] >>> 0);
      let d = x - denseMin;
      if (dense !== null && !(d >= 0 && d < denseRange) && d === Math.floor(d) && this.widenDense(x)) {
        dense = this.dense as Int32Array;
        denseMin = this.denseMin;
        denseRange = dense.length;
        d = x - denseMin;
      }
      if (dense !== null && d >= 0 && d < denseRange && d === Math.floor(d)) {
        let g = dense[d] - 1;
        if (g < 0) {
          g = this.appendDenseGroup(x);
          dense[d] = g + 1;
        }
        ids[r] = g;
        continue;
      }
      scratch[0] = x;
      ids[r] = this.lookupNumber(x, one, noNulls, pairs === null ? r : 0);
    }
  }

  /**
   * Widens the direct index to take integer key `x` when the range it then spans stays dense
   * enough for the rows seen (DENSE_WIDEN_SLOTS_PER_ROW, or DENSE_ANY_RANGE) and under
   * DENSE_WIDEN_MAX_RANGE; false (nothing changed) otherwise. Q11 aggregates each partsupp split's
   * German suppliers by part: 9k rows over 100k-140k partkeys, in pages whose first set the range
   * to a fraction of that, and half its rows took the hash path. The index at least
   * doubles each time and keeps the keys it had; groups the hash table held whose keys it now
   * covers move into it, and the table is rebuilt without them. An index starting at or above 0
   * keeps doing so while the keys are (the Int64 fast path reads keys by their low words).
   */
  private widenDense(x: number): boolean {
    const dense = this.dense;
    if (dense === null || dense === undefined) return false;
    const lo = Math.min(this.denseMin, x);
    const hi = Math.max(this.denseMin + dense.length - 1, x);
    const needed = hi - lo + 1;
    const limit = Math.min(DENSE_WIDEN_MAX_RANGE, Math.max(DENSE_ANY_RANGE, DENSE_WIDEN_SLOTS_PER_ROW * this.numericRows));
    if (needed > limit) return false;
    const length = Math.min(limit, Math.max(needed, 2 * dense.length));
    let min = x < this.denseMin ? hi - length + 1 : lo;
    // A start below 0 would only cover keys that cannot come (all seen are ≥ 0, as the fast path needs).
    if (min < 0 && lo >= 0) min = 0;
    const next = new Int32Array(length);
    next.set(dense, this.denseMin - min);
    // Groups the table holds (keys outside the old range, and NULL) move in when now covered.
    const keys = this.keyValues[0];
    const nulls = this.keyNulls[0];
    const slots = this.slots;
    let moved = 0;
    for (let s = 0; s < slots.length; s++) {
      const g = slots[s];
      if (g === -1) continue;
      const d = keys[g] - min;
      if (nulls[g] === 0 && d >= 0 && d < length && d === Math.floor(d)) {
        next[d] = g + 1;
        moved++;
      }
    }
    this.dense = next;
    this.denseMin = min;
    if (moved > 0) {
      this.hashedGroups -= moved;
      this.rehashInto(slots);
    }
    return true;
  }

  /**
   * singleNumericIds over NULL-free Int64 keys and a direct index starting at or above 0: the
   * offset is integer arithmetic on the low word (a key with a high word, or a low word that
   * reads negative, is ≥ 2^31 and lands outside the index), no double composed per row.
   */
  private denseInt64Ids(pairs: Int32Array, n: number, ids: Int32Array, scratch: Float64Array, one: Float64Array[], noNulls: null[]): void {
    let dense = this.dense as Int32Array;
    let min = this.denseMin;
    let range = dense.length;
    for (let r = 0; r < n; r++) {
      const lo = pairs[2 * r];
      let k = (lo - min) | 0;
      if (pairs[2 * r + 1] === 0 && k >>> 0 >= range && lo >= 0 && this.widenDense(lo)) {
        dense = this.dense as Int32Array;
        min = this.denseMin;
        range = dense.length;
        k = (lo - min) | 0;
      }
      if (pairs[2 * r + 1] === 0 && k >>> 0 < range) {
        let g = dense[k] - 1;
        if (g < 0) {
          g = this.appendDenseGroup(lo);
          dense[k] = g + 1;
        }
        ids[r] = g;
        continue;
      }
      const x = pairs[2 * r + 1] * 4294967296 + (lo >>> 0);
      scratch[0] = x;
      ids[r] = this.lookupNumber(x, one, noNulls, 0);
    }
  }

  /**
   * A new group for a key inside the direct index: the index alone finds it again, so it skips
   * the hash table (no hash, no slot; rehashes leave it out, see isDenseGroup).
   */
  private appendDenseGroup(x: number): number {
    const g = this.groupCount++;
    this.ensureCapacity(this.groupCount);
    this.hashes[g] = 0;
    this.keyNulls[0][g] = 0;
    this.keyValues[0][g] = x;
    return g;
  }

  /** Whether group g's key is inside the direct index (and so not in the hash table). */
  private isDenseGroup(g: number): boolean {
    const dense = this.dense;
    if (dense === null || dense === undefined || this.keyNulls[0][g] === 1) return false;
    const d = this.keyValues[0][g] - this.denseMin;
    return d >= 0 && d < dense.length && d === Math.floor(d);
  }

  /** The group of a non-NULL numeric key (inserted when new). */
  private lookupNumber(x: number, one: Float64Array[], noNulls: null[], r: number): number {
    const h = hashNumber(x);
    const slots = this.slots;
    const keys = this.keyValues[0];
    const keyNulls = this.keyNulls[0];
    const mask = slots.length - 1;
    let slot = h & mask;
    for (;;) {
      const cand = slots[slot];
      if (cand === -1) break;
      if (keys[cand] === x && keyNulls[cand] === 0) return cand;
      slot = (slot + 1) & mask;
    }
    return this.findOrInsert(h, one, noNulls, r);
  }

  /** Assigns a group id to every row of the key columns; with `sel`, to the rows it selects (ids[j] is row sel[j]'s group). */
  groupIds(keys: readonly Column[], n: number, sel: Int32Array | null = null): Int32Array {
    const k = keys.length;
    if (k === 0) {
      // One group: the same zeros every page (callers only read the ids).
      if (this.groupCount === 0) this.groupCount = 1;
      if (this.zeroIds.length < n) this.zeroIds = new Int32Array(n);
      return this.zeroIds.subarray(0, n);
    }
    const ids = new Int32Array(n);
    if (sel !== null) keys = keys.map((c) => gatherColumn(c, sel, n));
    // The path is chosen on the first page and kept: each stores its group keys its own way.
    if (this.lead === undefined) this.lead = this.groupCount === 0 && !keys.every((c) => c.kind === 'dict') ? this.chooseLead(keys) : -1;
    if (this.lead >= 0) {
      this.leadIds(keys, n, ids);
      return ids;
    }
    if (this.directIds(keys, n, ids)) return ids;
    if (k === 1 && !this.stringKey[0]) {
      this.singleNumericIds(keys[0], n, ids);
      return ids;
    }
    const codes = keys.map((c, i) => this.codes(i, c));
    const nulls = keys.map((c) => nullFlags(c));
    for (let r = 0; r < n; r++) {
      let h = 0x12345;
      for (let c = 0; c < k; c++) {
        const isNull = nulls[c] !== null && (nulls[c] as Uint8Array)[r] === 1;
        h = mix(h, isNull ? 0.5 : codes[c][r]);
      }
      ids[r] = this.findOrInsert(h, codes, nulls, r);
    }
    return ids;
  }

  private findOrInsert(h: number, codes: Float64Array[], nulls: (Uint8Array | null)[], r: number): number {
    const mask = this.slots.length - 1;
    let slot = h & mask;
    for (;;) {
      const g = this.slots[slot];
      if (g === -1) break;
      if (this.hashes[g] === h && this.equals(g, codes, nulls, r)) return g;
      slot = (slot + 1) & mask;
    }
    const g = this.groupCount++;
    this.ensureCapacity(this.groupCount);
    this.hashes[g] = h;
    for (let c = 0; c < codes.length; c++) {
      const isNull = nulls[c] !== null && (nulls[c] as Uint8Array)[r] === 1;
      this.keyNulls[c][g] = isNull ? 1 : 0;
      this.keyValues[c][g] = isNull ? 0 : codes[c][r];
    }
    this.slots[slot] = g;
    if (++this.hashedGroups * 2 > this.slots.length) this.rehash();
    return g;
  }

  private equals(g: number, codes: Float64Array[], nulls: (Uint8Array | null)[], r: number): boolean {
    for (let c = 0; c < codes.length; c++) {
      const isNull = nulls[c] !== null && (nulls[c] as Uint8Array)[r] === 1;
      if (isNull !== (this.keyNulls[c][g] === 1)) return false;
      if (!isNull) {
        const a = this.keyValues[c][g];
        const b = codes[c][r];
        if (a !== b && !(a !== a && b !== b)) return false;
      }
    }
    return true;
  }

  private ensureCapacity(groups: number): void {
    if (groups <= this.hashes.length) return;
    const size = this.hashes.length * 2;
    const grow = <T extends Float64Array | Uint8Array | Int32Array>(a: T, make: (n: number) => T): T => {
      const b = make(size);
      b.set(a);
      return b;
    };
    this.hashes = grow(this.hashes, (n) => new Int32Array(n));
    this.keyValues = this.keyValues.map((a) => grow(a, (n) => new Float64Array(n)));
    this.keyNulls = this.keyNulls.map((a) => grow(a, (n) => new Uint8Array(n)));
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    this.rehashInto(slots);
    this.slots = slots;
  }

  /** Groups the hash table holds; the others only the direct index (see singleNumericIds). */
  get hashedGroupCount(): number {
    return this.hashedGroups;
  }

  memoryBytes(): number {
    return this.slots.byteLength + this.hashes.byteLength + (this.dense?.byteLength ?? 0) + this.keyValues.reduce((n, a) => n + a.byteLength + a.length, 0);
  }
}

/** A direct index for keys over a range this small whatever the page's size (the first of Q11's partsupp splits: 4.5k rows over 28k partkeys). */
const DENSE_ANY_RANGE = 1 << 16;
/**
 * A direct index widened for later keys (widenDense) may have this many slots per row grouped so
 * far: 64 bytes a row, which a hash table's probing and rehashing cost more than in time (Q11's
 * partsupp drivers: 11 slots a row).
 */
const DENSE_WIDEN_SLOTS_PER_ROW = 16;
/**
 * …and at most this many slots (1 MB, within a core's cache): a partial aggregation fed splits
 * from all over a large table (Q18's 1.5M orderkeys over 6M) widened its index step after step to
 * 16 MB, rehashing the keys that moved in each time, and ran 14% slower than on the hash table.
 */
const DENSE_WIDEN_MAX_RANGE = 1 << 18;
/** A direct index covers at most this many key values (16 MB). */
const DENSE_MAX_RANGE = 1 << 22;

/**
 * The direct index for a page's integer keys when their range is small beside the page (at most
 * four slots a row, and DENSE_MAX_RANGE): twice the range seen, centred on it, so later pages'
 * keys (the rest of a table's key range) mostly fall in. Null otherwise.
 */
function denseIndexFor(pairs: Int32Array | null, values: Float64Array | null, nulls: Uint8Array | null, n: number): { slots: Int32Array; min: number } | null {
  const bounds = pairs !== null && nulls === null ? int64Bounds(pairs, n) : numberBounds(pairs, values, nulls, n);
  if (bounds === null) return null;
  const { min, max } = bounds;
  const range = max - min + 1;
  if (range > Math.max(4 * n, DENSE_ANY_RANGE) || 2 * range > DENSE_MAX_RANGE) return null;
  // Non-negative keys keep a non-negative start (the Int64 fast path needs one).
  const start = min - Math.floor(range / 2);
  return { slots: new Int32Array(2 * range), min: min >= 0 ? Math.max(0, start) : start };
}

/** Bounds of NULL-free Int64 keys read as int32 low words while every high word is 0 and low word non-negative. */
function int64Bounds(pairs: Int32Array, n: number): { min: number; max: number } | null {
  const scanned = wasmInt64Bounds(pairs, n);
  if (scanned === 'other') return numberBounds(pairs, null, null, n);
  if (scanned !== undefined) return scanned;
  let min = 2 ** 31;
  let max = -1;
  for (let r = 0; r < n; r++) {
    const lo = pairs[2 * r];
    if (pairs[2 * r + 1] !== 0 || lo < 0) return numberBounds(pairs, null, null, n);
    if (lo < min) min = lo;
    if (lo > max) max = lo;
  }
  return min <= max ? { min, max } : null;
}

function numberBounds(pairs: Int32Array | null, values: Float64Array | null, nulls: Uint8Array | null, n: number): { min: number; max: number } | null {
  let min = Infinity;
  let max = -Infinity;
  for (let r = 0; r < n; r++) {
    if (nulls !== null && nulls[r] === 1) continue;
    const x = pairs !== null ? pairs[2 * r + 1] * 4294967296 + (pairs[2 * r] >>> 0) : (values as Float64Array)[r];
    if (x !== Math.floor(x)) return null;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  return min <= max ? { min, max } : null;
}
