// Cutting a logical plan into stages. The leaf stage scans splits in parallel and does all the
// work it can per split (filters, projections, partial aggregation, per-split top-N and limits);
// the root stage gathers the leaf's pages through an exchange and finishes (final aggregation,
// merge sort, limit, final projection). Scans read only the columns the plan uses.

import type { Page } from '../data/page.js';
import type { SqlType } from '../data/types.js';
import type { TableMetadata } from '../connectors/catalog.js';
import type { AggregateSpec, FragmentSpec, OperatorSpec } from '../exec/specs.js';
import { operatorOutputTypes } from '../exec/pipeline.js';
import { EngineError } from '../util/engine-error.js';
import { referencedColumns, remapColumns, type Expr } from './ir.js';
import type { Field, PlanNode } from './plan.js';

export interface StagePlan {
  readonly stageId: number;
  readonly fragment: FragmentSpec;
  /** The table a source stage scans, or the constant rows of a VALUES source. */
  readonly scan?:
    | { readonly table: TableMetadata }
    | { readonly values: readonly (readonly Expr[])[]; readonly fields: readonly Field[] }
    | { readonly page: Page };
  readonly children: readonly number[];
}

export interface QueryPlan {
  /** stages[0] is the root (output) stage. */
  readonly stages: readonly StagePlan[];
  readonly names: readonly string[];
  readonly types: readonly SqlType[];
}

type Chain = PlanNode[];

/** The nodes from the output down to the source, top first. */
function chainOf(plan: PlanNode): Chain {
  const out: Chain = [];
  let node: PlanNode | undefined = plan;
  while (node) {
    out.push(node);
    node = 'input' in node ? node.input : undefined;
  }
  return out;
}

function identity(fields: readonly Field[]): Expr[] {
  return fields.map((f, i) => ({ kind: 'column', index: i, type: f.type }) as Expr);
}

function toAggregateSpecs(node: Extract<PlanNode, { kind: 'aggregate' }>): AggregateSpec[] {
  return node.aggregates.map((a) => ({ name: a.name, args: a.args, argType: a.argType, filter: a.filter, type: a.type }));
}

/** Operators for streaming nodes (filter/project), merging a filter with the projection above it. */
function streamingOps(nodes: readonly PlanNode[]): OperatorSpec[] {
  const ops: OperatorSpec[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    if (node.kind === 'filter') {
      const above = nodes[i + 1];
      if (above?.kind === 'project') {
        ops.push({ op: 'filterProject', filter: node.predicate, projections: above.exprs });
        i++;
      } else ops.push({ op: 'filterProject', filter: node.predicate, projections: identity(node.fields) });
    } else if (node.kind === 'project') {
      ops.push({ op: 'filterProject', filter: null, projections: node.exprs });
    } else throw new Error(`not a streaming node: ${node.kind}`);
  }
  return ops;
}

export function fragmentPlan(plan: PlanNode): QueryPlan {
  if (plan.kind !== 'output') throw new Error('fragmentPlan expects an output node');
  const chain = chainOf(plan.input).reverse(); // source first
  const source = chain[0];
  if (source.kind !== 'scan' && source.kind !== 'values') throw new EngineError('NOT_SUPPORTED', `Plan shape not supported: ${source.kind} at the bottom`);

  // The leaf stage runs streaming nodes, then the first blocking node's partial form.
  let i = 1;
  while (i < chain.length && (chain[i].kind === 'filter' || chain[i].kind === 'project')) i++;
  const leafOps: OperatorSpec[] = streamingOps(chain.slice(1, i));
  const rootOps: OperatorSpec[] = [];
  const boundary = chain[i];
  if (boundary?.kind === 'aggregate') {
    const aggregates = toAggregateSpecs(boundary);
    leafOps.push({ op: 'aggregate', step: 'partial', groupBy: boundary.groupBy, aggregates });
    // Partial output = [keys..., states...]: the final step groups by the leading keys.
    rootOps.push({ op: 'aggregate', step: 'final', groupBy: boundary.groupBy.map((_, k) => k), aggregates });
    i++;
  } else if (boundary?.kind === 'sort') {
    const above = chain[i + 1];
    const topN = above?.kind === 'limit' && above.count !== null ? above.count + above.offset : null;
    leafOps.push({ op: 'orderBy', keys: boundary.keys, limit: topN });
    rootOps.push({ op: 'orderBy', keys: boundary.keys, limit: topN });
    i++;
  } else if (boundary?.kind === 'limit') {
    if (boundary.count !== null) leafOps.push({ op: 'limit', count: boundary.count + boundary.offset, offset: 0 });
    rootOps.push({ op: 'limit', count: boundary.count, offset: boundary.offset });
    i++;
  }

  // Everything above the boundary runs in the root stage.
  const rest = chain.slice(i);
  for (let j = 0; j < rest.length; j++) {
    const node = rest[j];
    if (node.kind === 'filter' || node.kind === 'project') {
      let k = j;
      while (k < rest.length && (rest[k].kind === 'filter' || rest[k].kind === 'project')) k++;
      rootOps.push(...streamingOps(rest.slice(j, k)));
      j = k - 1;
    } else if (node.kind === 'sort') {
      const above = rest[j + 1];
      const topN = above?.kind === 'limit' && above.count !== null ? above.count + above.offset : null;
      rootOps.push({ op: 'orderBy', keys: node.keys, limit: topN });
    } else if (node.kind === 'limit') {
      rootOps.push({ op: 'limit', count: node.count, offset: node.offset });
    } else if (node.kind === 'aggregate') {
      rootOps.push({ op: 'aggregate', step: 'single', groupBy: node.groupBy, aggregates: toAggregateSpecs(node) });
    } else {
      throw new EngineError('NOT_SUPPORTED', `Plan node ${node.kind} above the first aggregation is not supported`);
    }
  }

  // Projection push-down: the scan reads only the columns the first operator uses.
  const sourceFields = source.fields;
  let scanColumns = sourceFields.map((_, c) => c);
  const first = leafOps[0];
  if (first?.op === 'filterProject') {
    const used = new Set<number>();
    if (first.filter) referencedColumns(first.filter, used);
    for (const e of first.projections) referencedColumns(e, used);
    scanColumns = [...used].sort((a, b) => a - b);
    const position = new Map(scanColumns.map((c, k) => [c, k]));
    const map = (c: number): number => position.get(c) as number;
    leafOps[0] = { op: 'filterProject', filter: first.filter ? remapColumns(first.filter, map) : null, projections: first.projections.map((e) => remapColumns(e, map)) };
  }
  const scanTypes = scanColumns.map((c) => sourceFields[c].type);
  const tableColumns = source.kind === 'scan' ? scanColumns.map((c) => source.columns[c]) : scanColumns;
  const leafOutputTypes = typesAfter(leafOps, scanTypes);
  const leaf: FragmentSpec = {
    stageId: 1,
    source: { kind: 'scan', table: source.kind === 'scan' ? `${source.table.catalog}.${source.table.schema}.${source.table.name}` : '$values', columns: tableColumns },
    inputTypes: scanTypes,
    operators: leafOps,
    outputTypes: leafOutputTypes,
    partitioning: 'source',
  };
  const root: FragmentSpec = {
    stageId: 0,
    source: { kind: 'exchange', stages: [1] },
    inputTypes: leafOutputTypes,
    operators: rootOps,
    outputTypes: typesAfter(rootOps, leafOutputTypes),
    partitioning: 'single',
  };
  const scan = source.kind === 'scan' ? { table: source.table } : { values: source.rows, fields: source.fields };
  return {
    stages: [
      { stageId: 0, fragment: root, children: [1] },
      { stageId: 1, fragment: leaf, scan, children: [] },
    ],
    names: plan.names,
    types: plan.fields.map((f) => f.type),
  };
}

function typesAfter(ops: readonly OperatorSpec[], input: readonly SqlType[]): SqlType[] {
  return ops.reduce<SqlType[]>((types, op) => operatorOutputTypes(op, types), [...input]);
}

/** A plan that returns constant rows (SHOW, DESCRIBE, EXPLAIN output) through the same stages. */
export function rowsPlan(names: readonly string[], types: readonly SqlType[], page: Page): QueryPlan {
  const columns = types.map((_, i) => i);
  const leaf: FragmentSpec = { stageId: 1, source: { kind: 'scan', table: '$rows', columns }, inputTypes: types, operators: [], outputTypes: types, partitioning: 'source' };
  const root: FragmentSpec = { stageId: 0, source: { kind: 'exchange', stages: [1] }, inputTypes: types, operators: [], outputTypes: types, partitioning: 'single' };
  return {
    stages: [
      { stageId: 0, fragment: root, children: [1] },
      { stageId: 1, fragment: leaf, scan: { page }, children: [] },
    ],
    names,
    types,
  };
}
