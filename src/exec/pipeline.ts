// A pipeline is a fragment's operators wired source → ... → sink. A driver runs one pipeline over
// one input (a split, or a batch of exchanged pages) and returns the pages and every operator's
// statistics. The same code runs in a Piscina worker (worker.ts) or inline on the main thread.

import type { Page } from '../data/page.js';
import type { SqlType } from '../data/types.js';
import { intermediateTypes } from './aggregates.js';
import { emptyOperatorStats, nowNanos, recordInput, recordOutput, type OperatorStats } from './metrics.js';
import { FilterProjectOperator } from './operators/filter-project.js';
import { HashAggregateOperator } from './operators/hash-aggregate.js';
import { LimitOperator } from './operators/limit.js';
import { isSelectionSink, type Operator, type PageSink } from './operators/operator.js';
import { OrderByOperator } from './operators/order-by.js';
import { HashJoinOperator } from './operators/hash-join.js';
import { WindowOperator } from './operators/window.js';
import { GroupIdOperator } from './operators/group-id.js';
import { HashPartitionOperator } from './operators/hash-partition.js';
import type { JoinTable } from './join-table.js';
import type { FragmentSpec, OperatorSpec } from './specs.js';
import { currentGuard, type DriverGuard } from './query-control.js';

/** The output types of an operator given its input types. */
export function operatorOutputTypes(spec: OperatorSpec, input: readonly SqlType[]): SqlType[] {
  switch (spec.op) {
    case 'filterProject':
      return spec.projections.map((e) => e.type);
    case 'aggregate': {
      const keys = spec.groupBy.map((i) => input[i]);
      if (spec.step === 'partial' || spec.step === 'passthrough') return [...keys, ...spec.aggregates.flatMap(intermediateTypes)];
      return [...keys, ...spec.aggregates.map((a) => a.type)];
    }
    case 'orderBy':
    case 'limit':
    case 'hashPartition':
      return [...input];
    case 'hashJoin':
      if (spec.joinType === 'mark') return [];
      if (spec.joinType === 'semi' || spec.joinType === 'anti') return [...input];
      return spec.output ? spec.output.map((c) => (c < input.length ? input[c] : spec.buildTypes[c - input.length])) : [...input, ...spec.buildTypes];
    case 'window':
      return [...input, ...spec.functions.map((f) => f.type)];
    case 'groupId':
      return [...input, { id: 'bigint' }];
  }
}

export class Pipeline {
  readonly operators: Operator[] = [];
  readonly sourceStats: OperatorStats;
  readonly outputStats: OperatorStats;
  private readonly head: PageSink;
  /** The running driver's guard: checked between pages (stop flag, memory limit). */
  private readonly guard: DriverGuard | null = currentGuard();

  constructor(
    readonly fragment: FragmentSpec,
    sink: PageSink,
    joins: Readonly<Record<number, JoinTable>> = {},
  ) {
    this.sourceStats = emptyOperatorStats(0, fragment.source.kind === 'scan' ? 'TableScanOperator' : 'ExchangeOperator');
    const n = fragment.operators.length;
    this.outputStats = emptyOperatorStats(n + 1, 'TaskOutputOperator');
    const output: PageSink = (page) => {
      recordInput(this.outputStats, page);
      recordOutput(this.outputStats, page);
      sink(page);
      if (this.guard !== null) this.guard.check();
    };
    // Build back to front so each operator knows its downstream.
    const types = operatorInputTypes(fragment);
    let next = output;
    const built: Operator[] = [];
    for (let i = n - 1; i >= 0; i--) {
      const op = createOperator(i + 1, fragment.operators[i], types[i], next, joins);
      built.unshift(op);
      const downstream = op;
      next = (page) => downstream.addInput(page);
    }
    // A filter feeding a raw aggregation or a join probe hands it selected rows, never a page.
    for (let i = 0; i + 1 < n; i++) {
      const [upstream, downstream] = [built[i], built[i + 1]];
      if (upstream instanceof FilterProjectOperator && isSelectionSink(downstream)) upstream.fuseInto(downstream);
    }
    this.operators = built;
    this.head = next;
    if (this.guard !== null) this.guard.measure = () => this.heldBytes();
  }

  /** What the pipeline holds: its output so far (a driver returns it at the end) and its operators' state. */
  heldBytes(): number {
    let bytes = this.outputStats.outputBytes;
    for (const op of this.operators) bytes += op.stats.peakMemoryBytes;
    return bytes;
  }

  /** Feeds a source page through the pipeline. */
  addInput(page: Page): void {
    if (this.guard !== null) this.guard.check();
    recordInput(this.sourceStats, page);
    recordOutput(this.sourceStats, page);
    if (page.length > 0) this.head(page);
  }

  finish(): void {
    if (this.guard !== null) this.guard.check();
    const start = nowNanos();
    this.sourceStats.finishCalls++;
    for (const op of this.operators) op.finish();
    this.outputStats.finishCalls++;
    this.outputStats.finishNanos += nowNanos() - start;
  }

  /** Groups the pipeline's aggregations hold so far (0 without one). */
  aggregationGroups(): number {
    let groups = 0;
    for (const op of this.operators) if (op instanceof HashAggregateOperator) groups += op.groupCount;
    return groups;
  }

  /** True once a downstream LIMIT is satisfied: the source can stop. */
  isDone(): boolean {
    return this.operators.some((op) => op.isDone());
  }

  stats(): OperatorStats[] {
    return [this.sourceStats, ...this.operators.map((o) => o.stats), this.outputStats];
  }
}

const inputTypesByFragment = new WeakMap<FragmentSpec, readonly (readonly SqlType[])[]>();

/**
 * Each operator's input types (and, last, the fragment's output types), worked out once per
 * fragment: a cached plan runs the same fragments again and again, a driver per split.
 */
function operatorInputTypes(fragment: FragmentSpec): readonly (readonly SqlType[])[] {
  let types = inputTypesByFragment.get(fragment);
  if (types === undefined) {
    const list: SqlType[][] = [fragment.inputTypes.slice()];
    for (const spec of fragment.operators) list.push(operatorOutputTypes(spec, list[list.length - 1]));
    inputTypesByFragment.set(fragment, (types = list));
  }
  return types;
}

function createOperator(id: number, spec: OperatorSpec, input: readonly SqlType[], next: PageSink, joins: Readonly<Record<number, JoinTable>>): Operator {
  switch (spec.op) {
    case 'hashJoin': {
      const table = joins[spec.joinId];
      if (!table) throw new Error(`join table ${spec.joinId} was not provided`);
      return new HashJoinOperator(id, table, spec.joinType, spec.probeKeys, spec.filter, spec.nullAware, spec.singleMatch, spec.output ?? null, next);
    }
    case 'filterProject':
      return new FilterProjectOperator(id, spec.filter, spec.projections, next);
    case 'aggregate':
      return new HashAggregateOperator(id, spec.step, spec.groupBy, spec.aggregates, input, next, spec.globalGroupIds ?? []);
    case 'orderBy':
      return new OrderByOperator(id, spec.keys, spec.limit, input, next);
    case 'limit':
      return new LimitOperator(id, spec.count, spec.offset, next);
    case 'window':
      return new WindowOperator(id, spec.functions, input, next);
    case 'groupId':
      return new GroupIdOperator(id, spec.groupCount, spec.sets, input, next);
    case 'hashPartition':
      return new HashPartitionOperator(id, spec.keys, spec.count, spec.index, next);
  }
}

export interface DriverResult {
  readonly pages: Page[];
  readonly stats: OperatorStats[];
  readonly wallNanos: number;
  readonly cpuNanos: number;
}

/** A driver's partial aggregation is judged on at least this many input rows (Q15's ~9.8k a split). */
const ADAPT_MIN_ROWS = 4096;

/** Whether the fragment's last operator is a partial aggregation. */
export function endsInPartialAggregation(fragment: FragmentSpec): boolean {
  const last = fragment.operators[fragment.operators.length - 1];
  return last !== undefined && last.op === 'aggregate' && last.step === 'partial';
}

/**
 * Whether a split's rows may be cut anywhere and fed to different drivers: a partial aggregation
 * after row-by-row operators only. Not when an operator needs whole splits (a single-step
 * aggregation grouped by the table's partitioning key relies on no group crossing a split).
 */
export function rowsDivisible(fragment: FragmentSpec): boolean {
  const ops = fragment.operators;
  return endsInPartialAggregation(fragment) && ops.slice(0, -1).every((o) => o.op === 'filterProject' || o.op === 'hashJoin');
}

/**
 * A partial aggregation that barely reduces its input (high-cardinality keys) only costs: once a
 * driver shows that, later drivers pass rows through as single-row states for the final step.
 */
export function adaptPartialAggregation(fragment: FragmentSpec, result: DriverResult): FragmentSpec {
  const index = fragment.operators.findIndex((o) => o.op === 'aggregate' && o.step === 'partial');
  if (index < 0) return fragment;
  const stats = result.stats[index + 1];
  if (!stats || stats.inputPositions < ADAPT_MIN_ROWS || stats.outputPositions < 0.5 * stats.inputPositions) return fragment;
  const operators = fragment.operators.map((o, i) => (i === index && o.op === 'aggregate' ? { ...o, step: 'passthrough' as const } : o));
  return { ...fragment, operators };
}

/** Runs a pipeline over complete input: all pages are added, then finish. */
export function runPipeline(fragment: FragmentSpec, input: Iterable<Page>, joins: Readonly<Record<number, JoinTable>> = {}): DriverResult {
  const wall0 = nowNanos();
  const pages: Page[] = [];
  const pipeline = new Pipeline(fragment, (p) => pages.push(p), joins);
  for (const page of input) {
    if (pipeline.isDone()) break;
    pipeline.addInput(page);
  }
  pipeline.finish();
  const wallNanos = nowNanos() - wall0;
  // A driver runs synchronously on its thread, so its wall time is its CPU time (Node 20 has no
  // per-thread CPU clock).
  return { pages, stats: pipeline.stats(), wallNanos, cpuNanos: wallNanos };
}
