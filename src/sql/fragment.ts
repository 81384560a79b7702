// Cutting a logical plan into stages. A pipeline runs from one source (a table scan, split-parallel
// over the worker pool, or an exchange from another stage) through streaming operators. A join
// keeps the probe side in the current pipeline and cuts the build side into a stage of its own,
// whose output becomes a hash table shared by every probing driver (a broadcast join). Aggregation
// and sorting cut too: partial work stays before the exchange, final work after it. Scans read only
// the columns their first operator uses.

import type { Page } from '../data/page.js';
import type { SqlType } from '../data/types.js';
import type { TableMetadata } from '../connectors/catalog.js';
import { operatorOutputTypes } from '../exec/pipeline.js';
import { needsAllRows, type AggregateSpec, type FragmentSpec, type OperatorSpec, type SourceSpec } from '../exec/specs.js';
import { EngineError } from '../util/engine-error.js';
import { mentionsNondeterministic, referencedColumns, remapColumns, type Expr } from './ir.js';
import { estimateRows, inputsOf, planText, type Field, type PlanNode } from './plan.js';

export interface BuildInput {
  readonly joinId: number;
  readonly stageId: number;
  /** Key columns of the build stage's output. */
  readonly keys: readonly number[];
  /** FULL joins track which build rows found a partner. */
  readonly trackMatches: boolean;
}

export interface StagePlan {
  readonly stageId: number;
  readonly fragment: FragmentSpec;
  /** The table a source stage scans, the constant rows of a VALUES source, or a prepared page. */
  readonly scan?:
    | { readonly table: TableMetadata }
    | { readonly values: readonly (readonly Expr[])[]; readonly fields: readonly Field[] }
    | { readonly page: Page };
  /** Stages this one reads through its exchange. */
  readonly children: readonly number[];
  /** Stages whose complete output this one hashes for its joins. */
  readonly builds: readonly BuildInput[];
  /**
   * A marking semi/anti join: the stage's drivers only mark build rows; when they are done the
   * stage outputs the build rows that were (semi) or were not (anti) marked.
   */
  readonly emitMarked?: { readonly joinId: number; readonly anti: boolean };
  /**
   * A LEFT JOIN run from its small preserved side (hashed, with match tracking): when the probes are
   * done, the build rows that found no partner, NULL-extended on the right, run through the
   * fragment's operators from `fromOperator` on (all streaming or partial, so a second pass is sound).
   */
  readonly emitUnmatched?: UnmatchedEmission;
}

export interface UnmatchedEmission {
  readonly joinId: number;
  readonly fromOperator: number;
  /** Types of the rows entering operator `fromOperator`: build (left) columns ++ right columns. */
  readonly inputTypes: readonly SqlType[];
  readonly leftWidth: number;
}

export interface QueryPlan {
  /** stages[0] is the root (output) stage. */
  readonly stages: readonly StagePlan[];
  readonly names: readonly string[];
  readonly types: readonly SqlType[];
}

/** A pipeline under construction. */
interface Builder {
  source: SourceSpec;
  scan?: StagePlan['scan'];
  inputTypes: SqlType[];
  ops: OperatorSpec[];
  types: SqlType[];
  children: number[];
  builds: BuildInput[];
  /** Scan-sourced pipelines run split-parallel. */
  parallel: boolean;
  /** Set by a LEFT JOIN run from its preserved side; see StagePlan.emitUnmatched. */
  unmatched?: UnmatchedEmission;
}

/** Operators a stage's unmatched LEFT JOIN rows may pass through in a second, separate driver. */
function safeForSecondPass(op: OperatorSpec): boolean {
  if (op.op === 'aggregate') return op.step === 'partial' || op.step === 'passthrough';
  return op.op === 'filterProject' || op.op === 'hashJoin' || op.op === 'groupId';
}

function identity(fields: readonly Field[]): Expr[] {
  return fields.map((f, i) => ({ kind: 'column', index: i, type: f.type }) as Expr);
}

class Fragmenter {
  private readonly stages: StagePlan[] = [];
  /** Stages by what they compute (reuseKey), for planning a repeated pipeline once. */
  private readonly sealed = new Map<string, number>();
  private nextStage = 1;
  private nextJoin = 0;
  /** Aggregations and joins the plan computes more than once (a view or WITH query used twice: Q15's revenue). */
  private repeated = new Set<PlanNode>();

  private push(b: Builder, op: OperatorSpec): void {
    if (b.unmatched && !safeForSecondPass(op)) this.cut(b);
    // Fold a projection into a preceding filter that only passed columns through (Q6: the filter
    // keeps price and discount, the projection multiplies them): one kernel reads the input.
    const last = b.ops[b.ops.length - 1];
    if (op.op === 'filterProject' && op.filter === null && last?.op === 'filterProject' && last.projections.every((e) => e.kind === 'column')) {
      const through = last.projections.map((e) => (e as { index: number }).index);
      b.ops[b.ops.length - 1] = { op: 'filterProject', filter: last.filter, projections: op.projections.map((e) => remapColumns(e, (i) => through[i])) };
    } else if (op.op === 'filterProject' && op.filter === null && last?.op === 'hashJoin' && (last.joinType === 'inner' || last.joinType === 'left') && !b.unmatched && op.projections.every((e) => e.kind === 'column')) {
      // Columns picked after a join: the join gathers only those for its output rows.
      const picked = op.projections.map((e) => (e as { index: number }).index);
      b.ops[b.ops.length - 1] = { ...last, output: last.output ? picked.map((i) => (last.output as readonly number[])[i]) : picked };
    } else b.ops.push(op);
    b.types = b.ops.reduce<SqlType[]>((types, o) => operatorOutputTypes(o, types), [...b.inputTypes]);
  }

  /** Seals `b` as a stage and makes `b` the pipeline reading that stage's output. */
  private cut(b: Builder): void {
    const types = b.types;
    const from = this.finish(b);
    Object.assign(b, this.exchange(from, types), { unmatched: undefined });
  }

  /**
   * Seals a pipeline as a stage; returns its id. A pipeline identical to one already sealed (a WITH
   * query or subquery used twice, as Q15's view) is not planned again: its consumers share that
   * stage, each reading the output on its own (exchange/output-buffer.ts).
   */
  finish(b: Builder, id?: number, emitMarked?: { joinId: number; anti: boolean; types: SqlType[] }): number {
    pruneScanColumns(b);
    const key = id === undefined && !emitMarked ? reuseKey(b) : undefined;
    const same = key === undefined ? undefined : this.sealed.get(key);
    if (same !== undefined) return same;
    const stageId = id ?? this.nextStage++;
    if (key !== undefined) this.sealed.set(key, stageId);
    const fragment: FragmentSpec = {
      stageId,
      source: b.source,
      inputTypes: b.inputTypes,
      operators: b.ops,
      outputTypes: emitMarked ? emitMarked.types : b.types,
      partitioning: b.parallel ? 'source' : 'single',
    };
    this.stages.push({
      stageId,
      fragment,
      scan: b.scan,
      children: b.children,
      builds: b.builds,
      ...(emitMarked ? { emitMarked: { joinId: emitMarked.joinId, anti: emitMarked.anti } } : {}),
      ...(b.unmatched ? { emitUnmatched: b.unmatched } : {}),
    });
    return stageId;
  }

  private exchange(from: number, types: SqlType[]): Builder {
    return newBuilder({ kind: 'exchange', stages: [from] }, types, undefined, false, [from]);
  }

  visit(node: PlanNode): Builder {
    switch (node.kind) {
      case 'scan': {
        const table = node.table;
        const types = node.fields.map((f) => f.type);
        return newBuilder({ kind: 'scan', table: `${table.catalog}.${table.schema}.${table.name}`, columns: [...node.columns] }, types, { table }, true, []);
      }
      case 'values':
        return newBuilder({ kind: 'scan', table: '$values', columns: node.fields.map((_, i) => i) }, node.fields.map((f) => f.type), { values: node.rows, fields: node.fields }, true, []);
      case 'filter': {
        const b = this.visit(node.input);
        this.push(b, { op: 'filterProject', filter: node.predicate, projections: identity(node.fields) });
        return b;
      }
      case 'project': {
        const b = this.visit(node.input);
        this.push(b, { op: 'filterProject', filter: null, projections: node.exprs });
        return b;
      }
      case 'join': {
        const lw = node.left.fields.length;
        const rw = node.right.fields.length;
        if (node.markLeft && (node.joinType === 'semi' || node.joinType === 'anti')) {
          // Hash the outer (left) rows, stream the right side through them marking matches, then
          // let the marked (semi) or unmarked (anti) outer rows flow on from an exchange.
          const { probe, joinId, outerTypes } = this.probeFromRight(node, 'mark');
          const marked = this.finish(probe, undefined, { joinId, anti: node.joinType === 'anti', types: outerTypes });
          return this.exchange(marked, outerTypes);
        }
        if (node.markLeft && node.joinType === 'left' && lw > 0 && rw > 0) {
          // A LEFT JOIN whose preserved side is the small one: hash it (tracking matches), stream the
          // right side through it as an inner join, restore left ++ right order; the left rows
          // that found no partner follow once the probes are done (StagePlan.emitUnmatched).
          const { probe, joinId } = this.probeFromRight(node, 'inner');
          this.push(probe, { op: 'filterProject', filter: null, projections: node.fields.map((f, i) => ({ kind: 'column', index: i < lw ? rw + i : i - lw, type: f.type }) as Expr) });
          probe.unmatched = { joinId, fromOperator: probe.ops.length, inputTypes: node.fields.map((f) => f.type), leftWidth: lw };
          return probe;
        }
        const probe = this.visit(node.left);
        // A join after an aggregation done within each split (Q11's threshold), or a join whose
        // build scans a large table after earlier joins have cut the probe rows down to few (Q17's
        // average per part), runs after an exchange: the scan stage needs none of this join's build
        // inputs and runs while they are computed, and only the reduced rows cross.
        if (probe.parallel && !probe.unmatched && (probe.ops.some((o) => o.op === 'aggregate') || worthOverlapping(node))) this.cut(probe);
        const build = this.visit(node.right);
        const buildStage = this.finish(build);
        const joinId = this.nextJoin++;
        if (node.joinType === 'full') throw new EngineError('NOT_SUPPORTED', 'FULL OUTER JOIN is not supported yet');
        probe.builds.push({ joinId, stageId: buildStage, keys: node.rightKeys, trackMatches: false });
        this.push(probe, {
          op: 'hashJoin',
          joinId,
          joinType: node.joinType,
          probeKeys: node.leftKeys,
          buildTypes: node.right.fields.map((f) => f.type),
          filter: node.filter,
          nullAware: node.nullAware,
          singleMatch: node.singleMatch,
        });
        // Computed again elsewhere in the plan (semi_joins_from_joins): a stage of its own, which
        // the other occurrence shares.
        if (this.repeated.has(node) && !probe.unmatched) this.cut(probe);
        return probe;
      }
      case 'aggregate': {
        const b = this.visit(node.input);
        const aggregates: AggregateSpec[] = node.aggregates.map((a) => ({ name: a.name, args: a.args, argType: a.argType, ...(a.keyType ? { keyType: a.keyType } : {}), filter: a.filter, distinct: a.distinct, type: a.type }));
        const global = node.globalGroupIds ? { globalGroupIds: node.globalGroupIds } : {};
        if (aggregates.some(needsAllRows)) {
          // DISTINCT aggregates (and approx_percentile) need every row of a group in one place: gather, then aggregate once.
          const from = b.parallel ? this.finish(b) : undefined;
          const q = from === undefined ? b : this.exchange(from, b.types);
          this.push(q, { op: 'aggregate', step: 'single', groupBy: node.groupBy, aggregates, ...global });
          return q;
        }
        // An empty grouping set's row over an empty input comes from one task only (not each split's).
        if (!b.parallel || (!b.unmatched && !node.globalGroupIds && groupsWithinSplits(b, node.groupBy))) {
          // One task sees all rows, or every group lives in one split (each driver aggregates its
          // split completely): no partial states to exchange. Computed
          // again elsewhere (see below): a stage of its own, which the other occurrence shares.
          this.push(b, { op: 'aggregate', step: 'single', groupBy: node.groupBy, aggregates, ...global });
          if (this.repeated.has(node)) this.cut(b);
          return b;
        }
        this.push(b, { op: 'aggregate', step: 'partial', groupBy: node.groupBy, aggregates });
        const q = this.exchange(this.finish(b), b.types);
        this.push(q, { op: 'aggregate', step: 'final', groupBy: node.groupBy.map((_, k) => k), aggregates, ...global });
        // Computed again elsewhere in the plan: the final step as a stage of its own, which the
        // other occurrence then shares (finish), instead of each consumer aggregating the shared
        // partial states itself.
        if (this.repeated.has(node)) this.cut(q);
        return q;
      }
      case 'sort':
        return this.sorted(node, null);
      case 'limit': {
        if (node.input.kind === 'sort' && node.count !== null) {
          const q = this.sorted(node.input, node.count + node.offset);
          this.push(q, { op: 'limit', count: node.count, offset: node.offset });
          return q;
        }
        const b = this.visit(node.input);
        if (!b.parallel) {
          this.push(b, { op: 'limit', count: node.count, offset: node.offset });
          return b;
        }
        if (node.count !== null) this.push(b, { op: 'limit', count: node.count + node.offset, offset: 0 });
        const q = this.exchange(this.finish(b), b.types);
        this.push(q, { op: 'limit', count: node.count, offset: node.offset });
        return q;
      }
      case 'groupId': {
        const b = this.visit(node.input);
        this.push(b, { op: 'groupId', groupCount: node.groupCount, sets: node.sets });
        return b;
      }
      case 'window': {
        // Window functions see whole partitions: gather first.
        const b = this.visit(node.input);
        const q = b.parallel ? this.exchange(this.finish(b), b.types) : b;
        this.push(q, { op: 'window', functions: node.functions });
        return q;
      }
      case 'union': {
        // Each input becomes a stage of its own; one exchange reads them all.
        const stages = node.inputs.map((input) => {
          const b = this.visit(input);
          return this.finish(b);
        });
        return newBuilder({ kind: 'exchange', stages }, node.fields.map((f) => f.type), undefined, false, stages);
      }
      case 'output':
        return this.visit(node.input);
    }
  }

  /**
   * A join run from its left side: the left rows hashed with match tracking, the right side's
   * pipeline probing them (`mark` only records matches; `inner` emits right ++ left pairs).
   */
  private probeFromRight(node: Extract<PlanNode, { kind: 'join' }>, joinType: 'mark' | 'inner'): { probe: Builder; joinId: number; outerTypes: SqlType[] } {
    const lw = node.left.fields.length;
    const rw = node.right.fields.length;
    const outerTypes = node.left.fields.map((f) => f.type);
    const buildStage = this.finish(this.visit(node.left));
    const probe = this.visit(node.right);
    // One stage emits the unmatched rows of one LEFT JOIN at most.
    if (joinType === 'inner' && probe.unmatched) this.cut(probe);
    const joinId = this.nextJoin++;
    probe.builds.push({ joinId, stageId: buildStage, keys: node.leftKeys, trackMatches: true });
    this.push(probe, {
      op: 'hashJoin',
      joinId,
      joinType,
      probeKeys: node.rightKeys,
      buildTypes: outerTypes,
      // The residual reads left ++ right; the probe page is right ++ left.
      filter: node.filter ? remapColumns(node.filter, (i) => (i < lw ? i + rw : i - lw)) : null,
      nullAware: false,
      singleMatch: false,
    });
    return { probe, joinId, outerTypes };
  }

  private sorted(node: Extract<PlanNode, { kind: 'sort' }>, topN: number | null): Builder {
    const b = this.visit(node.input);
    this.push(b, { op: 'orderBy', keys: node.keys, limit: topN });
    // A single-driver pipeline's sort is already the whole sort.
    if (!b.parallel) return b;
    const q = this.exchange(this.finish(b), b.types);
    this.push(q, { op: 'orderBy', keys: node.keys, limit: topN });
    return q;
  }

  plan(root: Extract<PlanNode, { kind: 'output' }>): QueryPlan {
    this.repeated = repeatedSubtrees(root);
    let b = this.visit(root);
    // The root stage is a single task: gather a parallel pipeline through an exchange first. A
    // pipeline over constant rows is one split already: it is the root stage itself (as Trino plans
    // VALUES), which spares a trivial statement a second task and an exchange.
    if (b.parallel && !overConstantRows(b)) b = this.exchange(this.finish(b), b.types);
    b.parallel = false;
    this.finish(b, 0);
    const stages = [...this.stages].sort((x, y) => x.stageId - y.stageId);
    return { stages, names: root.names, types: root.fields.map((f) => f.type) };
  }
}

function newBuilder(source: SourceSpec, inputTypes: SqlType[], scan: StagePlan['scan'], parallel: boolean, children: number[]): Builder {
  return { source, scan, inputTypes, ops: [], types: [...inputTypes], children, builds: [], parallel };
}

/** A join computed for two uses is shared up to this many estimated rows (its output is held until both have read it). */
const SHARED_JOIN_ROWS = 1_000_000;

/**
 * The aggregation nodes, and joins of few estimated rows, whose whole subtree occurs more than
 * once in the plan (equal as text); the outermost such only: what lies inside a repeated subtree
 * occurs twice because it does (Q11's join inside its repeated aggregation stays in the
 * aggregation's split-parallel stage).
 */
function repeatedSubtrees(root: PlanNode): Set<PlanNode> {
  const texts = new Map<PlanNode, string>();
  const counts = new Map<string, number>();
  const count = (node: PlanNode): void => {
    if (node.kind === 'aggregate' || (node.kind === 'join' && !node.markLeft && estimateRows(node) <= SHARED_JOIN_ROWS)) {
      const text = planText(node);
      if (text !== undefined) {
        texts.set(node, text);
        counts.set(text, (counts.get(text) ?? 0) + 1);
      }
    }
    for (const input of inputsOf(node)) count(input);
  };
  count(root);
  const repeated = new Set<PlanNode>();
  const outermost = (node: PlanNode): void => {
    const text = texts.get(node);
    if (text !== undefined && (counts.get(text) ?? 0) > 1) repeated.add(node);
    else for (const input of inputsOf(node)) outermost(input);
  };
  outermost(root);
  return repeated;
}

/**
 * What a pipeline computes, as text, when sharing its stage is sound: a table scan or exchange (not
 * constant rows carried as pages), no second pass for unmatched rows, nothing non-deterministic.
 */
function reuseKey(b: Builder): string | undefined {
  if (b.unmatched || (b.scan && !('table' in b.scan))) return undefined;
  // A join's id only names one of the pipeline's builds: numbered by position, a join over the
  // same build stage computes the same in either copy (Q11's partsupp ⋈ German suppliers).
  const local = new Map(b.builds.map((build, k) => [build.joinId, k]));
  const key = JSON.stringify([b.source, b.inputTypes, b.ops, b.types, b.parallel, b.children, b.builds], (name, v: unknown) =>
    name === 'joinId' && typeof v === 'number' && local.has(v) ? `build ${local.get(v)}` : v,
  );
  return mentionsNondeterministic(key) ? undefined : key;
}

/** A probe side at most this many (estimated) rows, from a scan this many times larger, is "few rows". */
const FEW_PROBE_ROWS = 200_000;
const REDUCTION = 20;
/** A build side reading at least this many rows is worth overlapping with the probe's scan (sf1's partsupp, 800k, counts: Q2). */
const LARGE_BUILD_ROWS = 500_000;

/** Whether the join's probe side is reduced to few rows while its build reads a large table. */
function worthOverlapping(node: Extract<PlanNode, { kind: 'join' }>): boolean {
  const probeRows = estimateRows(node.left);
  return probeRows <= FEW_PROBE_ROWS && probeRows * REDUCTION <= largestScan(node.left) && largestScan(node.right) >= LARGE_BUILD_ROWS;
}

function largestScan(node: PlanNode): number {
  if (node.kind === 'scan') return node.table.rowCount;
  let most = 0;
  for (const child of inputsOf(node)) most = Math.max(most, largestScan(child));
  return most;
}

/** A self-contained pipeline over VALUES: one split, no joins. */
function overConstantRows(b: Builder): boolean {
  return b.source.kind === 'scan' && b.source.table === '$values' && b.builds.length === 0 && b.children.length === 0 && !b.unmatched;
}

/** The scanned table column a pipeline output column passes through unchanged, if any. */
function scanColumnOf(b: Builder, index: number): number | undefined {
  if (b.source.kind !== 'scan') return undefined;
  const widths: number[] = [];
  let types: SqlType[] = [...b.inputTypes];
  for (const op of b.ops) {
    widths.push(types.length);
    types = operatorOutputTypes(op, types);
  }
  let i = index;
  for (let k = b.ops.length - 1; k >= 0; k--) {
    const op = b.ops[k];
    if (op.op === 'filterProject') {
      const e = op.projections[i];
      if (e?.kind !== 'column') return undefined;
      i = e.index;
    } else if (op.op === 'hashJoin') {
      // Probe columns come first; a probe row's values stay with the rows it joins.
      if (op.output) i = op.output[i];
      if (i >= widths[k]) return undefined;
    } else if (op.op !== 'limit' && op.op !== 'orderBy') return undefined;
  }
  return b.source.columns[i];
}

/** Whether the group keys include all columns the scanned table is partitioned by. */
function groupsWithinSplits(b: Builder, groupBy: readonly number[]): boolean {
  const partitionedBy = b.scan && 'table' in b.scan ? b.scan.table.partitionedBy : undefined;
  if (!partitionedBy || partitionedBy.length === 0 || b.source.kind !== 'scan') return false;
  const keyColumns = new Set(groupBy.map((g) => scanColumnOf(b, g)));
  return partitionedBy.every((c) => keyColumns.has(c));
}

/** The scan reads only the columns its first operator uses (projection push-down). */
function pruneScanColumns(b: Builder): void {
  if (b.source.kind !== 'scan') return;
  const first = b.ops[0];
  if (first?.op !== 'filterProject') return;
  const used = new Set<number>();
  if (first.filter) referencedColumns(first.filter, used);
  for (const e of first.projections) referencedColumns(e, used);
  const keep = [...used].sort((x, y) => x - y);
  const position = new Map(keep.map((c, k) => [c, k]));
  const map = (c: number): number => position.get(c) as number;
  b.ops[0] = { op: 'filterProject', filter: first.filter ? remapColumns(first.filter, map) : null, projections: first.projections.map((e) => remapColumns(e, map)) };
  b.source = { kind: 'scan', table: b.source.table, columns: keep.map((c) => (b.source as { columns: readonly number[] }).columns[c]) };
  b.inputTypes = keep.map((c) => b.inputTypes[c]);
}

export function fragmentPlan(plan: PlanNode): QueryPlan {
  if (plan.kind !== 'output') throw new Error('fragmentPlan expects an output node');
  return new Fragmenter().plan(plan);
}

/** A plan that returns constant rows (SHOW, DESCRIBE, EXPLAIN output): one stage scanning them. */
export function rowsPlan(names: readonly string[], types: readonly SqlType[], page: Page): QueryPlan {
  const columns = types.map((_, i) => i);
  const root: FragmentSpec = { stageId: 0, source: { kind: 'scan', table: '$rows', columns }, inputTypes: types, operators: [], outputTypes: types, partitioning: 'single' };
  return { stages: [{ stageId: 0, fragment: root, scan: { page }, children: [], builds: [] }], names, types };
}
