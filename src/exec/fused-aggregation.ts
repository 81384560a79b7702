// Fused raw aggregation: one generated loop computes every aggregate's argument of a row and adds
// it into one interleaved block (compile.ts: compileAggregateUpdate), by group id, or, when every
// key is a small dictionary column, by the combination of dictionary indices (no hashing per row at
// all: TPC-H Q1 groups 6M rows by returnflag, linestatus this way). The block is added into the
// accumulators' own state arrays when the operator needs them (finish, or before a non-fused
// update). count, sum and avg take this path; the rest (and FILTER/DISTINCT) update per aggregate.

import { sameDictionary, type Column, type DictionaryColumn } from '../data/page.js';
import type { Expr } from '../sql/ir.js';
import { typeEquals } from '../data/types.js';
import type { Accumulator, FusedPart } from './aggregates.js';
import { compileAggregateUpdate, compileFilteredAggregateUpdate, type AggregateUpdateKernel, type BlockRowSource, type FilteredAggregateUpdateKernel } from './compile/aggregate-kernels.js';
import type { ColumnShape } from './compile/emit.js';
import type { GroupByHash } from './group-by-hash.js';

/** Key combinations above this many are grouped by hash: the block would be mostly empty. */
const MAX_CODES = 4096;

export class FusedAggregation {
  private block = new Float64Array(0);
  /** The kernel that last filled the block (its layout is the block's). */
  private kernel: AggregateUpdateKernel | FilteredAggregateUpdateKernel | null = null;
  /** Block rows below this may hold values. */
  private dirtyRows = 0;
  /** Set once a grouped filtered update kept fewer than half its rows: filter first from then on. */
  private selectFirst = false;
  /** In code mode: the dictionary key columns the codes index (null: rows are group ids). */
  private codeKeys: readonly DictionaryColumn[] | null = null;
  /**
   * The filtered kernel of the last page and what it was looked up for: the next page of the same
   * shapes reuses it without building the lookup's key (~20 us a page: a memory table's pages
   * of a few thousand rows paid it again and again).
   */
  private lastFiltered: { predicate: Expr; args: readonly (Expr | null)[]; keyIndexes: readonly number[]; shapes: readonly ColumnShape[]; sizes: readonly number[]; kernel: FilteredAggregateUpdateKernel } | null = null;

  /** Each accumulator's fused operation; null when one has no fused form. */
  private readonly ops: readonly FusedPart['op'][] | null;

  constructor(
    private readonly accumulators: readonly Accumulator[],
    private readonly hash: GroupByHash,
  ) {
    this.ops = this.parts(0)?.map((p) => p.op) ?? null;
  }

  /** Whether every accumulator has a fused form. */
  available(): boolean {
    return this.ops !== null;
  }

  private parts(groupCount: number): FusedPart[] | null {
    const parts: FusedPart[] = [];
    for (const acc of this.accumulators) {
      const part = acc.fused?.(groupCount);
      if (part === undefined) return null;
      parts.push(part);
    }
    return parts;
  }

  /**
   * Adds the selected rows of `cols` (sel null: the first `count`) into their groups; `keys` are
   * the group key columns, `keyIndexes` their positions in `cols`.
   */
  update(args: readonly (Expr | null)[], cols: readonly Column[], shapes: readonly ColumnShape[], sel: Int32Array | null, count: number, keys: readonly Column[], keyIndexes: readonly number[]): void {
    const ops = this.ops as FusedPart['op'][];
    const codeKeys = smallDictionaries(keys);
    let groups: Int32Array | null = null;
    let rows: BlockRowSource;
    let blockRows: number;
    if (codeKeys !== null) {
      const sizes = codeKeys.map((c) => c.dictionary.length);
      rows = { kind: 'codes', columns: keyIndexes, sizes };
      blockRows = sizes.reduce((a, b) => a * b, 1);
    } else {
      this.hash.reserve(count);
      groups = this.hash.groupIds(keys, count, sel);
      rows = { kind: 'groups' };
      blockRows = this.hash.groupCount;
    }
    const kernel = compileAggregateUpdate(args, ops, shapes, rows);
    this.prepareBlock(kernel, codeKeys, blockRows);
    kernel.update(cols, sel, count, groups, this.block);
    this.dirtyRows = Math.max(this.dirtyRows, blockRows);
  }

  /**
   * Adds the rows of `cols` (all `n`) that `predicate` keeps, evaluating it in the same loop as the
   * aggregates (compileFilteredAggregateUpdate); returns how many rows it kept, or -1 with nothing
   * done when that kernel cannot be used (keys that are not small dictionaries, arguments that
   * could be NULL or fail on a rejected row).
   */
  updateFiltered(predicate: Expr, args: readonly (Expr | null)[], cols: readonly Column[], shapes: readonly ColumnShape[], n: number, keys: readonly Column[], keyIndexes: readonly number[]): number {
    const codeKeys = smallDictionaries(keys);
    if (codeKeys === null || this.selectFirst) return -1;
    const sizes = codeKeys.map((c) => c.dictionary.length);
    const last = this.lastFiltered;
    let kernel: FilteredAggregateUpdateKernel | null;
    if (last !== null && last.predicate === predicate && last.args === args && sameNumbers(last.keyIndexes, keyIndexes) && sameNumbers(last.sizes, sizes) && sameShapes(last.shapes, shapes)) kernel = last.kernel;
    else {
      kernel = compileFilteredAggregateUpdate(predicate, args, this.ops as FusedPart['op'][], shapes, { kind: 'codes', columns: keyIndexes, sizes });
      if (kernel === null) return -1;
      this.lastFiltered = { predicate, args, keyIndexes, shapes, sizes, kernel };
    }
    const blockRows = sizes.reduce((a, b) => a * b, 1);
    // One more row: the trash row the kernel adds rejected rows into (and clears).
    this.prepareBlock(kernel, codeKeys, blockRows + 1);
    const kept = kernel.update(cols, n, this.block, blockRows);
    this.dirtyRows = Math.max(this.dirtyRows, blockRows);
    // Grouped, every rejected row adds into the one trash row: a chain of dependent adds through
    // memory. When most rows are rejected, selecting them first is faster (Q6's predicate with
    // a trash row: 3.6 ns per row, selection first: 2.9 ns).
    if (keys.length > 0 && kept * 2 < n) this.selectFirst = true;
    return kept;
  }

  /** Makes the block ready for `kernel` to add into its first `blockRows` rows. */
  private prepareBlock(kernel: AggregateUpdateKernel | FilteredAggregateUpdateKernel, codeKeys: readonly DictionaryColumn[] | null, blockRows: number): void {
    // A block holds rows of one layout over one set of dictionaries: flush before switching.
    if (this.kernel !== null && (this.kernel.layout !== kernel.layout || !sameDictionaries(this.codeKeys, codeKeys))) this.flush();
    this.kernel = kernel;
    this.codeKeys = codeKeys;
    const need = blockRows * kernel.width;
    if (this.block.length < need) {
      const grown = new Float64Array(Math.max(need, this.block.length * 2, 64));
      grown.set(this.block.subarray(0, this.dirtyRows * kernel.width));
      this.block = grown;
    }
  }

  /** Adds the block into the accumulators' states (creating the groups of code rows) and clears it. */
  flush(): void {
    const kernel = this.kernel;
    if (kernel === null || this.dirtyRows === 0) return;
    const { width, slots } = kernel;
    const block = this.block;
    const rows = this.dirtyRows;
    // Each block row's group: itself, or the group of the key combination its code stands for.
    let groupOf: Int32Array | null = null;
    if (this.codeKeys !== null) groupOf = this.codeGroups(this.codeKeys, rows, width);
    const parts = this.parts(this.hash.groupCount) as FusedPart[];
    for (let k = 0; k < parts.length; k++) {
      const { op, states } = parts[k];
      const { value, count } = slots[k];
      const [first, second] = states;
      for (let r = 0, b = 0; r < rows; r++, b += width) {
        const n = block[b + count];
        if (n === 0) continue;
        const g = groupOf === null ? r : groupOf[r];
        if (op === 'count_star' || op === 'count') first[g] += n;
        else if (op === 'sum') {
          first[g] += block[b + value];
          second[g] = 0;
        } else {
          first[g] += block[b + value];
          second[g] += n;
        }
      }
    }
    block.fill(0, 0, rows * width);
    this.dirtyRows = 0;
  }

  /** Groups for the code rows that hold rows (others: -1), creating them in the hash. */
  private codeGroups(keys: readonly DictionaryColumn[], rows: number, width: number): Int32Array {
    const used: number[] = [];
    for (let r = 0; r < rows; r++) if (this.block[r * width] !== 0) used.push(r);
    const sizes = keys.map((c) => c.dictionary.length);
    const digits = keys.map(() => new Int32Array(used.length));
    used.forEach((code, j) => {
      for (let k = keys.length - 1; k >= 0; k--) {
        digits[k][j] = code % sizes[k];
        code = Math.floor(code / sizes[k]);
      }
    });
    const keyColumns: Column[] = keys.map((c, k) => ({ kind: 'dict', type: c.type, length: used.length, validity: null, indices: digits[k], dictionary: c.dictionary }));
    this.hash.reserve(used.length);
    const groups = this.hash.groupIds(keyColumns, used.length);
    const groupOf = new Int32Array(rows).fill(-1);
    used.forEach((code, j) => (groupOf[code] = groups[j]));
    return groupOf;
  }

  memoryBytes(): number {
    return this.block.byteLength;
  }
}

/** The keys as dictionary columns, when all are NULL-free with few enough combinations. */
function smallDictionaries(keys: readonly Column[]): DictionaryColumn[] | null {
  let combinations = 1;
  for (const c of keys) {
    if (c.kind !== 'dict' || c.validity !== null) return null;
    combinations *= Math.max(1, c.dictionary.length);
    if (combinations > MAX_CODES) return null;
  }
  return keys as DictionaryColumn[];
}

function sameDictionaries(a: readonly DictionaryColumn[] | null, b: readonly DictionaryColumn[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((c, k) => sameDictionary(c.dictionary, b[k].dictionary));
}

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Shapes a kernel compiled for one could not tell from the other's (kind, type, nullability). */
function sameShapes(a: readonly ColumnShape[], b: readonly ColumnShape[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x.kind !== y.kind || x.nullable !== y.nullable || (x.type !== y.type && !typeEquals(x.type, y.type))) return false;
  }
  return true;
}
