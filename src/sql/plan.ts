// The logical plan: relational operators over bound expressions. Every node lists its output
// fields; column references in a node's expressions index its input's fields.

import type { SqlType } from '../data/types.js';
import type { TableMetadata } from '../connectors/catalog.js';
import { conjuncts, mentionsNondeterministic, type Expr } from './ir.js';
import type { WindowFunctionSpec } from '../exec/specs.js';

export interface Field {
  readonly name: string;
  readonly type: SqlType;
}

export type AggregateName = 'count' | 'count_star' | 'sum' | 'avg' | 'min' | 'max' | 'bool_and' | 'bool_or' | 'arbitrary' | 'var_samp' | 'var_pop' | 'stddev_samp' | 'stddev_pop' | 'max_by' | 'min_by' | 'approx_percentile' | 'listagg' | CovarianceName;

/** Two-argument statistics over (y, x) pairs: covariance, correlation, linear regression. */
export type CovarianceName = 'covar_samp' | 'covar_pop' | 'corr' | 'regr_slope' | 'regr_intercept';
export const COVARIANCE_NAMES: readonly CovarianceName[] = ['covar_samp', 'covar_pop', 'corr', 'regr_slope', 'regr_intercept'];

export interface AggregateCall {
  readonly name: AggregateName;
  /** Input column indices of the arguments (none for count(*)). */
  readonly args: readonly number[];
  readonly argType: SqlType | null;
  /** max_by/min_by: the type of the second argument, the one compared. */
  readonly keyType?: SqlType;
  readonly distinct: boolean;
  /** Input column (boolean) of a FILTER (WHERE ...) clause, if any. */
  readonly filter: number | null;
  readonly type: SqlType;
}

export interface SortKey {
  readonly index: number;
  readonly ascending: boolean;
  readonly nullsFirst: boolean;
}

export type JoinType = 'inner' | 'left' | 'full' | 'semi' | 'anti';

export type PlanNode =
  | { readonly kind: 'scan'; readonly table: TableMetadata; readonly columns: readonly number[]; readonly fields: readonly Field[] }
  | { readonly kind: 'values'; readonly rows: readonly (readonly Expr[])[]; readonly fields: readonly Field[] }
  | { readonly kind: 'filter'; readonly input: PlanNode; readonly predicate: Expr; readonly fields: readonly Field[] }
  | { readonly kind: 'project'; readonly input: PlanNode; readonly exprs: readonly Expr[]; readonly fields: readonly Field[] }
  | {
      readonly kind: 'aggregate';
      readonly input: PlanNode;
      readonly groupBy: readonly number[];
      readonly aggregates: readonly AggregateCall[];
      /**
       * Grouping sets: the numbers of the empty sets (the last group key is the set number), each
       * of which still gives its one row of aggregates over no rows when the input is empty.
       */
      readonly globalGroupIds?: readonly number[];
      readonly fields: readonly Field[];
    }
  | { readonly kind: 'sort'; readonly input: PlanNode; readonly keys: readonly SortKey[]; readonly fields: readonly Field[] }
  | { readonly kind: 'limit'; readonly input: PlanNode; readonly count: number | null; readonly offset: number; readonly fields: readonly Field[] }
  | { readonly kind: 'output'; readonly input: PlanNode; readonly names: readonly string[]; readonly fields: readonly Field[] }
  /** GROUPING SETS: each row once per set, group fields outside the set NULL, then the set number. */
  | { readonly kind: 'groupId'; readonly input: PlanNode; readonly groupCount: number; readonly sets: readonly (readonly number[])[]; readonly fields: readonly Field[] }
  /** Window functions: the input's fields, then one field per function. */
  | { readonly kind: 'window'; readonly input: PlanNode; readonly functions: readonly WindowFunctionSpec[]; readonly fields: readonly Field[] }
  /** UNION ALL: the inputs' rows, one after another (inputs have the same field types). */
  | { readonly kind: 'union'; readonly inputs: readonly PlanNode[]; readonly fields: readonly Field[] }
  | {
      readonly kind: 'join';
      readonly joinType: JoinType;
      /** The probe (streamed) side. */
      readonly left: PlanNode;
      /** The build (hashed) side. */
      readonly right: PlanNode;
      /** Equi-join keys: column indices of each side, pairwise equal. Empty = cross join. */
      readonly leftKeys: readonly number[];
      readonly rightKeys: readonly number[];
      /** Residual condition over left fields ++ right fields. */
      readonly filter: Expr | null;
      /** NOT IN semantics: a NULL build key makes every non-matching probe row unknown. */
      readonly nullAware: boolean;
      /** Fail when a probe row matches more than one build row (scalar subqueries). */
      readonly singleMatch: boolean;
      /**
       * Semi/anti joins only: hash the left (outer) side and stream the right side through it,
       * marking matched outer rows; the outer rows are emitted once probing ends. Chosen when the
       * right side is much larger.
       */
      readonly markLeft?: boolean;
      readonly fields: readonly Field[];
    };

export type PlanKind = PlanNode['kind'];

export function inputsOf(node: PlanNode): PlanNode[] {
  if (node.kind === 'join') return [node.left, node.right];
  if (node.kind === 'union') return [...node.inputs];
  return 'input' in node ? [node.input] : [];
}

/** A plan subtree as text, or undefined when it cannot be shared (non-deterministic) or written. */
export function planText(node: PlanNode): string | undefined {
  try {
    const text = JSON.stringify(node, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
    return mentionsNondeterministic(text) ? undefined : text;
  } catch {
    return undefined;
  }
}

/** Rows of the underlying table(s) before filters: what an estimate's fraction is taken of. */
function baseRows(node: PlanNode): number {
  switch (node.kind) {
    case 'scan':
      return node.table.rowCount;
    case 'values':
      return node.rows.length;
    case 'join':
      return baseRows(node.left);
    case 'union':
      return node.inputs.reduce((n, i) => n + baseRows(i), 0);
    case 'aggregate':
      return estimateRows(node);
    default:
      return baseRows(node.input);
  }
}

/** The scan node and table column an output column reads unchanged, if it does. */
export interface ColumnOrigin {
  readonly scan: PlanNode & { kind: 'scan' };
  readonly column: number;
}

export function columnOrigin(node: PlanNode, index: number): ColumnOrigin | null {
  switch (node.kind) {
    case 'scan':
      return { scan: node, column: node.columns[index] };
    case 'filter':
    case 'sort':
    case 'limit':
      return columnOrigin(node.input, index);
    case 'project': {
      const e = node.exprs[index];
      return e?.kind === 'column' ? columnOrigin(node.input, e.index) : null;
    }
    case 'join': {
      const lw = node.left.fields.length;
      if (index < lw) return columnOrigin(node.left, index);
      // Only inner joins keep the right side's rows whole; an outer join may NULL-extend them.
      return node.joinType === 'inner' ? columnOrigin(node.right, index - lw) : null;
    }
    default:
      return null;
  }
}

/** Distinct values of an output column, when the connector knows them. */
function distinctValues(node: PlanNode, index: number): number | undefined {
  const origin = columnOrigin(node, index);
  return origin ? origin.scan.table.columns[origin.column]?.distinctValues : undefined;
}

/**
 * The fraction of `input`'s rows a conjunct keeps, from distinct-value counts: `col = literal`
 * keeps 1/NDV, `col IN (k literals)` k/NDV; undefined when no count is known.
 */
export function knownSelectivity(e: Expr, input: PlanNode): number | undefined {
  if (e.kind === 'call' && e.name === '$eq') {
    const [a, b] = e.args;
    const column = a.kind === 'column' && b.kind === 'literal' ? a : b.kind === 'column' && a.kind === 'literal' ? b : null;
    const ndv = column ? distinctValues(input, column.index) : undefined;
    return ndv ? 1 / ndv : undefined;
  }
  if (e.kind === 'in' && !e.negated && e.arg.kind === 'column' && e.list.every((x) => x.kind === 'literal')) {
    const ndv = distinctValues(input, e.arg.index);
    return ndv ? Math.min(1, e.list.length / ndv) : undefined;
  }
  // A word searched for anywhere in free text ('%green%' in part names): few rows have it. 5% is
  // about what TPC-H's patterns keep (Q9's '%green%' 5.4%); an unknown predicate's 30% made Q9
  // keep hashing 1.5M orders when the 320k joined lineitem rows were the smaller side.
  if (e.kind === 'like' && !e.negated && e.escape === null && e.pattern.kind === 'literal' && typeof e.pattern.value === 'string') {
    const parts = e.pattern.value.split('%');
    const anywhere = parts.length >= 3 && parts[0] === '' && parts[parts.length - 1] === '' && !e.pattern.value.includes('_');
    if (anywhere && parts.some((p) => p.length >= 4)) return 0.05;
  }
  return undefined;
}

/** Rough output cardinality, for join ordering and build-side choice. */
export function estimateRows(node: PlanNode): number {
  switch (node.kind) {
    case 'scan':
      return node.table.rowCount;
    case 'values':
      return node.rows.length;
    case 'filter': {
      // 0.3 for an unknown predicate; less where distinct-value counts say so.
      let known = 1;
      for (const c of conjuncts(node.predicate)) known *= knownSelectivity(c, node.input) ?? 1;
      return Math.max(1, estimateRows(node.input) * Math.min(0.3, known));
    }
    case 'aggregate':
      return node.groupBy.length === 0 ? 1 : Math.max(1, Math.min(estimateRows(node.input), estimateRows(node.input) * 0.2));
    case 'limit':
      return node.count === null ? estimateRows(node.input) : Math.min(node.count, estimateRows(node.input));
    case 'union':
      return node.inputs.reduce((n, i) => n + estimateRows(i), 0);
    case 'join': {
      const l = estimateRows(node.left);
      if (node.joinType === 'semi') return Math.max(1, Math.min(l * 0.5, estimateRows(node.right) * 4));
      if (node.joinType === 'anti') return Math.max(1, l * 0.5);
      if (node.leftKeys.length === 0) return l * estimateRows(node.right);
      // Joins are mostly foreign key → primary key: each probe row survives with the chance that
      // its partner survived the build side's filters.
      const surviving = Math.min(1, estimateRows(node.right) / Math.max(1, baseRows(node.right)));
      return Math.max(1, node.joinType === 'inner' ? l * surviving : l);
    }
    default:
      return estimateRows(node.input);
  }
}
