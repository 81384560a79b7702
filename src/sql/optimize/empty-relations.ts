// prune_empty_relations (Trino's RemoveTrivialFilters and the EvaluateEmpty* rules): a filter that
// can never hold (a false or NULL conjunct once constants are folded: WHERE false, 1 = 0, HAVING
// false, an inner join's ON false) becomes an empty VALUES relation, and the emptiness travels up
// through every operator whose output is empty on empty input. Otherwise the plan would still
// read, join and filter every row: a cross join under `WHERE false` computed its whole product.

import { andAll, conjuncts, type Expr } from '../ir.js';
import type { Field, PlanNode } from '../plan.js';
import { mapPlanNodes } from './walk.js';

/** A conjunct that no row satisfies: a false or NULL literal. */
export function neverHolds(e: Expr): boolean {
  return e.kind === 'literal' && (e.value === false || e.value === null);
}

/** Whether any conjunct of a predicate never holds (then the whole predicate never does). */
export function predicateNeverHolds(e: Expr | null): boolean {
  return e !== null && conjuncts(e).some(neverHolds);
}

export function emptyRelation(fields: readonly Field[]): PlanNode {
  return { kind: 'values', rows: [], fields };
}

export function isEmptyRelation(node: PlanNode): boolean {
  return node.kind === 'values' && node.rows.length === 0;
}

/** A predicate without its always-true conjuncts; null when none is left. */
function withoutTrue(e: Expr): Expr | null {
  return andAll(conjuncts(e).filter((c) => !(c.kind === 'literal' && c.value === true)));
}

export function pruneEmptyRelations(plan: PlanNode): PlanNode {
  return mapPlanNodes(plan, (node) => {
    switch (node.kind) {
      case 'scan':
      case 'values':
      case 'output':
        return node;
      case 'filter': {
        if (isEmptyRelation(node.input) || predicateNeverHolds(node.predicate)) return emptyRelation(node.fields);
        const rest = withoutTrue(node.predicate);
        return rest === null ? node.input : rest === node.predicate ? node : { ...node, predicate: rest };
      }
      case 'limit':
        return isEmptyRelation(node.input) || node.count === 0 ? emptyRelation(node.fields) : node;
      case 'aggregate': {
        // A global aggregation over no rows still gives its one row (count 0, sum NULL), and so
        // does each empty grouping set, which an aggregation node may list (globalGroupIds).
        const emptySets = (node as { readonly globalGroupIds?: readonly number[] }).globalGroupIds ?? [];
        return isEmptyRelation(node.input) && node.groupBy.length > 0 && emptySets.length === 0 ? emptyRelation(node.fields) : node;
      }
      case 'union': {
        const inputs = node.inputs.filter((i) => !isEmptyRelation(i));
        if (inputs.length === 0) return emptyRelation(node.fields);
        return inputs.length === node.inputs.length ? node : { ...node, inputs };
      }
      case 'join':
        return pruneJoin(node);
      default:
        return isEmptyRelation(node.input) ? emptyRelation(node.fields) : node;
    }
  });
}

function pruneJoin(node: PlanNode & { kind: 'join' }): PlanNode {
  const leftEmpty = isEmptyRelation(node.left);
  const rightEmpty = isEmptyRelation(node.right);
  const never = predicateNeverHolds(node.filter);
  switch (node.joinType) {
    case 'inner':
    case 'semi':
      return leftEmpty || rightEmpty || never ? emptyRelation(node.fields) : node;
    case 'anti':
      if (leftEmpty) return emptyRelation(node.fields);
      // No build row can match: every probe row is kept (NOT IN of an empty list is true, NULLs too).
      return rightEmpty || (never && !node.nullAware) ? node.left : node;
    case 'left':
      if (leftEmpty) return emptyRelation(node.fields);
      // Every left row is kept once, NULL-extended: a join against no rows, linear in the left side.
      return !rightEmpty && never ? { ...node, right: emptyRelation(node.right.fields), filter: null } : node;
    case 'full':
      return leftEmpty && rightEmpty ? emptyRelation(node.fields) : node;
  }
}
