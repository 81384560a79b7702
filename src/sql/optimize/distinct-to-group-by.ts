// distinct_to_group_by (after Trino's SingleDistinctAggregationToGroupBy): a global aggregation
// whose aggregates are all DISTINCT over one and the same argument first groups by that argument,
// then aggregates it plainly: `count(DISTINCT x)` becomes `count(x)` over `GROUP BY x`. A DISTINCT
// aggregate needs every row in one task (fragment.ts), where one thread deduplicates them all;
// the GROUP BY runs as a partial aggregation in the scan's own stage on every worker
// (`count(DISTINCT partkey)` over sf1 lineitem: 480-600 -> 45-70 ms). A NULL argument becomes one
// group, which count, sum, min and the rest then ignore, as DISTINCT aggregates do.
// Not for grouped aggregations: there the inner GROUP BY has the outer keys plus the argument,
// and the multi-key hash table was the slower of the two (Q16: 63 -> 80-115 ms; sf1 lineitem's
// suppkey, count(DISTINCT partkey): 500-600 -> 690-1100 ms).

import type { AggregateCall, PlanNode } from '../plan.js';
import { mapPlanNodes } from './walk.js';

type Aggregate = PlanNode & { kind: 'aggregate' };

/** The one argument column every aggregate takes DISTINCT (without FILTER), or undefined. */
function singleDistinctArgument(node: Aggregate): number | undefined {
  const first = node.aggregates[0];
  if (first === undefined || first.args.length !== 1) return undefined;
  const arg = first.args[0];
  const same = (a: AggregateCall): boolean => a.distinct && a.filter === null && a.args.length === 1 && a.args[0] === arg;
  return node.aggregates.every(same) ? arg : undefined;
}

function rewrite(node: Aggregate): PlanNode {
  const arg = node.groupBy.length === 0 ? singleDistinctArgument(node) : undefined;
  if (arg === undefined) return node;
  const distinctValues: Aggregate = {
    kind: 'aggregate',
    input: node.input,
    groupBy: [arg],
    aggregates: [],
    fields: [node.input.fields[arg]],
  };
  return { ...node, input: distinctValues, aggregates: node.aggregates.map((a) => ({ ...a, args: [0], distinct: false })) };
}

export function distinctToGroupBy(plan: PlanNode): PlanNode {
  return mapPlanNodes(plan, (node) => (node.kind === 'aggregate' ? rewrite(node) : node));
}
