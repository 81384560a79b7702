// merge_union_values: the VALUES inputs of a UNION ALL become one VALUES relation with all their
// rows (`SELECT 1 UNION ALL SELECT 2 …` once merge_project_with_values made each arm a VALUES).
// Each input would otherwise be a stage and a task of its own.

import type { PlanNode } from '../plan.js';
import { mapPlanNodes } from './walk.js';

const typeKey = (node: PlanNode): string => JSON.stringify(node.fields.map((f) => f.type));

export function mergeUnionValues(plan: PlanNode): PlanNode {
  return mapPlanNodes(plan, (node) => {
    if (node.kind !== 'union') return node;
    const key = typeKey(node);
    const values = node.inputs.filter((i): i is PlanNode & { kind: 'values' } => i.kind === 'values' && typeKey(i) === key);
    if (values.length < 2) return node;
    const merged: PlanNode = { kind: 'values', rows: values.flatMap((v) => v.rows), fields: node.fields };
    const rest = node.inputs.filter((i) => !values.includes(i as PlanNode & { kind: 'values' }));
    return rest.length === 0 ? merged : { ...node, inputs: [merged, ...rest] };
  });
}
