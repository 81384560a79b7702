// limit_existence_checks: a semi or anti join without keys or condition (an uncorrelated EXISTS,
// NOT EXISTS) only asks whether its right side has a row: the right side gets LIMIT 1, which
// stops its scan at the first row, and the join meets a table of at most one row. Without it the
// whole subquery was hashed and every probe row walked it.

import type { PlanNode } from '../plan.js';
import { mapPlanNodes } from './walk.js';

export function limitExistenceChecks(plan: PlanNode): PlanNode {
  return mapPlanNodes(plan, (node) => {
    if (node.kind !== 'join' || (node.joinType !== 'semi' && node.joinType !== 'anti')) return node;
    if (node.leftKeys.length > 0 || node.filter !== null || node.nullAware || isAtMostOneRow(node.right)) return node;
    const right: PlanNode = { kind: 'limit', input: node.right, count: 1, offset: 0, fields: node.right.fields };
    return { ...node, right, markLeft: false };
  });
}

function isAtMostOneRow(node: PlanNode): boolean {
  if (node.kind === 'limit') return node.count !== null && node.count <= 1;
  if (node.kind === 'values') return node.rows.length <= 1;
  if (node.kind === 'aggregate') return node.groupBy.length === 0;
  return node.kind === 'project' && isAtMostOneRow(node.input);
}
