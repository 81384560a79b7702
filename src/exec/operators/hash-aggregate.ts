// Hash aggregation: rows → group ids through the typed-array GroupByHash, then every aggregate's
// accumulator updates (raw step) or merges partial states (final step). Output on finish.

import type { Column, Page } from '../../data/page.js';
import type { Expr } from '../../sql/ir.js';
import { shapesOf } from '../compile/compile.js';
import type { ColumnShape } from '../compile/emit.js';
import { BIGINT, type SqlType } from '../../data/types.js';
import { columnFromNumbers } from '../build-columns.js';
import { nullColumn } from '../gather.js';
import { createAccumulator, filterMask, intermediateTypes, rowStates, type Accumulator } from '../aggregates.js';
import { FusedAggregation } from '../fused-aggregation.js';
import { GroupByHash } from '../group-by-hash.js';
import { emptyOperatorStats, nowNanos, recordInput, recordOutput, type OperatorStats } from '../metrics.js';
import type { AggregateSpec } from '../specs.js';
import type { FilterSink, Operator, PageSink, SelectionSink } from './operator.js';

/** A fused update's view of its input: each aggregate's argument, each group key's column. */
interface FusedInputs {
  readonly args: readonly (Expr | null)[];
  readonly keyIndexes: readonly number[];
}

/** Fused inputs by projection list, then by operator spec (see HashAggregateOperator.fusedInputs). */
const fusedInputsBySpec = new WeakMap<readonly Expr[], { aggregates: readonly AggregateSpec[]; groupBy: readonly number[]; fusable: boolean; inputs: FusedInputs | null }[]>();

export class HashAggregateOperator implements Operator, SelectionSink, FilterSink {
  readonly stats: OperatorStats;
  private readonly hash: GroupByHash;
  private readonly accumulators: Accumulator[];
  private readonly stateOffsets: number[] = [];
  private readonly fused: FusedAggregation;
  /** Raw step, no FILTER or DISTINCT, every aggregate with a fused form (see updateFused). */
  private readonly fusable: boolean;
  /** The raw step's input columns as expressions, for fused updates straight from input pages. */
  private readonly inputColumns: readonly Expr[];
  /** The fused update's inputs for the last projection list seen (see fusedInputs). */
  private fusedInputsOf: { projections: readonly Expr[]; inputs: FusedInputs | null } | null = null;

  constructor(
    operatorId: number,
    private readonly step: 'partial' | 'final' | 'single' | 'passthrough',
    private readonly groupBy: readonly number[],
    private readonly aggregates: readonly AggregateSpec[],
    private readonly inputTypes: readonly SqlType[],
    private readonly next: PageSink,
    /** Set numbers of empty grouping sets (the last key is the set number), see finish. */
    private readonly globalGroupIds: readonly number[] = [],
  ) {
    this.stats = emptyOperatorStats(operatorId, groupBy.length === 0 ? 'AggregationOperator' : 'HashAggregationOperator');
    this.hash = new GroupByHash(groupBy.map((i) => inputTypes[i].id === 'varchar'));
    this.accumulators = aggregates.map((a) => {
      const argType = step === 'final' ? a.type : a.argType;
      return createAccumulator(a, argType !== null && argType.id === 'varchar');
    });
    this.fused = new FusedAggregation(this.accumulators, this.hash);
    this.fusable =
      (step === 'partial' || step === 'single') && aggregates.every((a) => a.filter === null && !a.distinct && a.args.length <= 1) && this.fused.available();
    this.inputColumns = inputTypes.map((type, index) => ({ kind: 'column', index, type }));
    // In the final step the input is [keys..., states of aggregate 0..., states of aggregate 1...].
    let offset = groupBy.length;
    for (const a of aggregates) {
      this.stateOffsets.push(offset);
      offset += intermediateTypes(a).length;
    }
  }

  addInput(page: Page): void {
    const start = nowNanos();
    recordInput(this.stats, page);
    const n = page.length;
    if (this.step === 'passthrough') {
      // Each row becomes its own partial state; the final step does all the grouping.
      const columns: Column[] = this.groupBy.map((i) => page.columns[i]);
      for (const a of this.aggregates) {
        const mask = a.filter === null ? null : filterMask(page.columns[a.filter]);
        columns.push(...rowStates(a, a.args.map((i) => page.columns[i]), mask, n));
      }
      const out: Page = { length: n, columns };
      this.stats.addInputNanos += nowNanos() - start;
      recordOutput(this.stats, out);
      this.next(out);
      return;
    }
    if (this.fusable && this.updateFused(page, null, n, this.inputColumns, shapesOf(page))) {
      this.stats.addInputNanos += nowNanos() - start;
      return;
    }
    this.fused.flush();
    this.hash.reserve(n);
    const groups = this.hash.groupIds(this.groupBy.map((i) => page.columns[i]), n);
    this.aggregates.forEach((a, k) => {
      const acc = this.accumulators[k];
      if (this.step === 'final') {
        const width = intermediateTypes(a).length;
        acc.merge(groups, n, page.columns.slice(this.stateOffsets[k], this.stateOffsets[k] + width), this.hash.groupCount);
      } else {
        const mask = a.filter === null ? null : filterMask(page.columns[a.filter]);
        acc.update(groups, n, a.args.map((i) => page.columns[i]), mask, this.hash.groupCount);
      }
    });
    this.recordMemory();
    this.stats.addInputNanos += nowNanos() - start;
  }

  private recordMemory(): void {
    const memory = this.hash.memoryBytes() + this.fused.memoryBytes() + this.accumulators.reduce((m, acc) => m + acc.memoryBytes(), 0);
    this.stats.peakMemoryBytes = Math.max(this.stats.peakMemoryBytes, memory);
  }

  /**
   * Aggregates the rows `sel` selects from an upstream filter's input page (all rows when null),
   * reading each aggregate's argument as `projections` would compute it, without the projected page
   * ever existing. Returns the nanoseconds spent, or -1 (nothing done) when this aggregation cannot
   * run fused (see updateFused).
   */
  addSelected(page: Page, sel: Int32Array | null, count: number, projections: readonly Expr[], shapes: readonly ColumnShape[]): number {
    const start = nowNanos();
    if (!this.updateFused(page, sel, count, projections, shapes)) return -1;
    return this.countTaken(start, count);
  }

  /** Counts rows taken from an upstream filter without a page; returns the nanoseconds since `start`. */
  private countTaken(start: number, rows: number): number {
    this.stats.addInputCalls++;
    this.stats.inputPositions += rows;
    const nanos = nowNanos() - start;
    this.stats.addInputNanos += nanos;
    return nanos;
  }

  /**
   * The fused raw update (fused-aggregation.ts); false, with nothing done, when not `fusable` or
   * a group key is computed.
   */
  private updateFused(page: Page, sel: Int32Array | null, count: number, projections: readonly Expr[], shapes: readonly ColumnShape[]): boolean {
    const inputs = this.fusedInputs(projections);
    if (inputs === null) return false;
    const { args, keyIndexes } = inputs;
    this.fused.update(args, page.columns, shapes, sel, count, keyIndexes.map((i) => page.columns[i]), keyIndexes);
    this.recordMemory();
    return true;
  }

  /**
   * Aggregates the rows of an upstream filter's input page that `predicate` keeps, the filter and
   * the aggregates evaluated in one loop (FusedAggregation.updateFiltered). Returns the rows kept
   * and the nanoseconds spent, or null (nothing done) when that cannot be done for this page.
   */
  addFiltered(page: Page, predicate: Expr, projections: readonly Expr[], shapes: readonly ColumnShape[]): { kept: number; nanos: number } | null {
    const start = nowNanos();
    const inputs = this.fusedInputs(projections);
    if (inputs === null) return null;
    const { args, keyIndexes } = inputs;
    const kept = this.fused.updateFiltered(predicate, args, page.columns, shapes, page.length, keyIndexes.map((i) => page.columns[i]), keyIndexes);
    if (kept < 0) return null;
    this.recordMemory();
    return { kept, nanos: this.countTaken(start, kept) };
  }

  /**
   * Each aggregate's argument and each key's position when the input is `projections` of a page;
   * null when not `fusable` or a group key is computed. Kept per projection list and operator
   * spec, so the arguments array is the same object every page and every driver of a fragment
   * (kernel lookups key on it: a new one costs its JSON text, ~50 us for Q1's).
   */
  private fusedInputs(projections: readonly Expr[]): FusedInputs | null {
    if (this.fusedInputsOf?.projections === projections) return this.fusedInputsOf.inputs;
    let known = fusedInputsBySpec.get(projections);
    if (known === undefined) {
      known = [];
      fusedInputsBySpec.set(projections, known);
    }
    let entry = known.find((e) => e.aggregates === this.aggregates && e.groupBy === this.groupBy && e.fusable === this.fusable);
    if (entry === undefined) {
      let inputs: FusedInputs | null = null;
      if (this.fusable && this.groupBy.every((i) => projections[i].kind === 'column')) {
        inputs = {
          args: this.aggregates.map((a) => (a.args.length === 0 ? null : projections[a.args[0]])),
          keyIndexes: this.groupBy.map((i) => (projections[i] as { index: number }).index),
        };
      }
      entry = { aggregates: this.aggregates, groupBy: this.groupBy, fusable: this.fusable, inputs };
      known.push(entry);
    }
    this.fusedInputsOf = { projections, inputs: entry.inputs };
    return entry.inputs;
  }

  /** Groups held so far (a fused block's code rows count once flushed). */
  get groupCount(): number {
    return this.hash.groupCount;
  }

  finish(): void {
    const start = nowNanos();
    this.stats.finishCalls++;
    if (this.step === 'passthrough') return;
    this.fused.flush();
    // A global aggregation has exactly one group, even over no rows.
    if (this.groupBy.length === 0 && this.hash.groupCount === 0) this.hash.groupIds([], 0);
    // So has each empty grouping set: its group, keys NULL but the set number's, over no rows.
    else if (this.globalGroupIds.length > 0 && this.step !== 'partial' && this.hash.groupCount === 0) {
      const n = this.globalGroupIds.length;
      const last = this.groupBy.length - 1;
      const keys = this.groupBy.map((input, k) => (k === last ? columnFromNumbers(BIGINT, Float64Array.from(this.globalGroupIds), null, n) : nullColumn(this.inputTypes[input], n)));
      this.hash.groupIds(keys, n);
    }
    const groupCount = this.hash.groupCount;
    const columns: Column[] = this.groupBy.map((input, k) => this.keyColumn(k, this.inputTypes[input], groupCount));
    for (const acc of this.accumulators) {
      if (this.step === 'partial') columns.push(...acc.intermediate(groupCount));
      else columns.push(acc.final(groupCount));
    }
    const out: Page = { length: groupCount, columns };
    this.stats.finishNanos += nowNanos() - start;
    if (groupCount > 0) {
      recordOutput(this.stats, out);
      this.next(out);
    }
  }

  private keyColumn(k: number, type: SqlType, n: number): Column {
    return this.hash.keyColumn(k, type, n);
  }

  isDone(): boolean {
    return false;
  }
}
