// roll_up_aggregations: a global aggregation over the same rows and arguments as a grouped one is
// computed from the grouped one's result (the sum of the per-group sums, the max of the maxima)
// instead of from the rows again. Q11 compares each part's value with a share of the total:
// `HAVING sum(v) > (SELECT sum(v) * 0.0001 FROM <the same join>)`; the total then comes from
// 30k group sums rather than a second scan and join of 800k partsupp rows, and the grouped
// aggregation, now occurring twice in the plan, is planned once (fragment.ts, repeatedAggregations).

import { columnRef, mapChildren, type Expr } from '../ir.js';
import { planText, type AggregateCall, type PlanNode } from '../plan.js';
import { nodesOfKind, rewriteSharing } from './walk.js';

/** Aggregates whose value over all rows is the same aggregate over the groups' values (NULL over none). */
const ROLLS_UP = new Set(['sum', 'min', 'max']);

type Aggregate = PlanNode & { kind: 'aggregate' };

/** A node's output columns as expressions over the first non-projection below it. */
interface Flattened {
  readonly base: PlanNode;
  readonly exprs: readonly Expr[];
}

function flatten(node: PlanNode): Flattened {
  if (node.kind !== 'project') return { base: node, exprs: node.fields.map((f, i) => columnRef(i, f.type)) };
  const inner = flatten(node.input);
  return { base: inner.base, exprs: node.exprs.map((e) => substitute(e, inner.exprs)) };
}

function substitute(e: Expr, exprs: readonly Expr[]): Expr {
  return e.kind === 'column' ? exprs[e.index] : mapChildren(e, (c) => substitute(c, exprs));
}

/** An aggregate call's argument as text over the flattened input; undefined when it cannot roll up. */
function rollableArgument(a: AggregateCall, input: Flattened): string | undefined {
  if (!ROLLS_UP.has(a.name) || a.distinct || a.filter !== null || a.args.length !== 1) return undefined;
  return `${a.name}:${JSON.stringify(input.exprs[a.args[0]])}`;
}

interface Grouped {
  readonly node: Aggregate;
  readonly baseText: string;
  /** rollableArgument text -> the grouped node's output column of that aggregate. */
  readonly columns: ReadonlyMap<string, number>;
}

function grouped(node: Aggregate): Grouped | undefined {
  const input = flatten(node.input);
  const baseText = planText(input.base);
  if (baseText === undefined || baseText.includes('"outerRef"')) return undefined;
  const columns = new Map<string, number>();
  node.aggregates.forEach((a, k) => {
    const arg = rollableArgument(a, input);
    if (arg !== undefined && !columns.has(arg)) columns.set(arg, node.groupBy.length + k);
  });
  return columns.size === 0 ? undefined : { node, baseText, columns };
}

/** The global aggregation `node` over a grouped aggregation's result, when one computes all it needs. */
function rollUp(node: Aggregate, candidates: readonly Grouped[]): Aggregate | undefined {
  const input = flatten(node.input);
  const baseText = planText(input.base);
  if (baseText === undefined) return undefined;
  for (const g of candidates) {
    if (g.baseText !== baseText) continue;
    const columns = node.aggregates.map((a) => {
      const arg = rollableArgument(a, input);
      return arg === undefined ? undefined : g.columns.get(arg);
    });
    // The per-group values must have the total's own type (sum(integer) is bigint either way).
    if (!columns.every((c, k) => c !== undefined && sameType(g.node.fields[c].type, node.aggregates[k].type))) continue;
    const aggregates = node.aggregates.map((a, k): AggregateCall => {
      const column = columns[k] as number;
      return { name: a.name, args: [column], argType: g.node.fields[column].type, distinct: false, filter: null, type: a.type };
    });
    return { kind: 'aggregate', input: g.node, groupBy: [], aggregates, fields: node.fields };
  }
  return undefined;
}

function sameType(a: { readonly id: string }, b: { readonly id: string }): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function rollUpAggregations(plan: PlanNode): PlanNode {
  const all = nodesOfKind(plan, 'aggregate');
  const candidates = all.filter((a) => a.groupBy.length > 0).flatMap((a) => grouped(a) ?? []);
  if (candidates.length === 0) return plan;
  const rewrites = new Map<PlanNode, PlanNode>();
  for (const node of all) {
    if (node.groupBy.length > 0 || node.aggregates.length === 0) continue;
    const rolled = rollUp(node, candidates);
    if (rolled !== undefined) rewrites.set(node, rolled);
  }
  return rewriteSharing(plan, rewrites, (rolled) => (rolled as Aggregate).input);
}
