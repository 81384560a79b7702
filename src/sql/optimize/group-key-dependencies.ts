// reduce_group_keys: a GROUP BY that includes a table's whole primary key groups by that key alone;
// the key's other columns of the same table row (functionally dependent on it) are carried as
// `arbitrary` aggregates. Q10 and Q18 group by a customer key plus the customer's name, address
// and comment: hashing and comparing one bigint instead of several long strings per row.

import type { Expr } from '../ir.js';
import { columnOrigin, type AggregateCall, type ColumnOrigin, type PlanNode } from '../plan.js';

function rewrite(node: PlanNode & { kind: 'aggregate' }): PlanNode {
  if (node.groupBy.length < 2) return node;
  const origins = node.groupBy.map((k) => columnOrigin(node.input, k));
  // Group keys that are a whole primary key of one scan make that scan's other key columns dependent.
  const dependent = new Set<number>();
  const scans = new Set(origins.filter((o): o is ColumnOrigin => o !== null).map((o) => o.scan));
  for (const scan of scans) {
    const pk = scan.table.primaryKey;
    if (!pk || pk.length === 0) continue;
    const columnsHere = origins.map((o) => (o && o.scan === scan ? o.column : -1));
    if (!pk.every((c) => columnsHere.includes(c))) continue;
    columnsHere.forEach((c, j) => {
      if (c >= 0 && !pk.includes(c)) dependent.add(j);
    });
  }
  if (dependent.size === 0) return node;
  const keyCount = node.groupBy.length;
  const kept = node.groupBy.map((_, j) => j).filter((j) => !dependent.has(j));
  const carried = node.groupBy.map((_, j) => j).filter((j) => dependent.has(j));
  const inputFields = node.input.fields;
  const arbitrary: AggregateCall[] = carried.map((j) => {
    const type = inputFields[node.groupBy[j]].type;
    return { name: 'arbitrary', args: [node.groupBy[j]], argType: type, distinct: false, filter: null, type };
  });
  const reduced: PlanNode = {
    kind: 'aggregate',
    input: node.input,
    groupBy: kept.map((j) => node.groupBy[j]),
    aggregates: [...node.aggregates, ...arbitrary],
    fields: [...kept.map((j) => node.fields[j]), ...node.fields.slice(keyCount), ...carried.map((j) => node.fields[j])],
  };
  // Restore the original layout: the group keys in their order, then the aggregates.
  const position = (j: number): number => (dependent.has(j) ? kept.length + node.aggregates.length + carried.indexOf(j) : kept.indexOf(j));
  const exprs: Expr[] = node.fields.map((f, i) => ({ kind: 'column', index: i < keyCount ? position(i) : kept.length + (i - keyCount), type: f.type }) as Expr);
  return { kind: 'project', input: reduced, exprs, fields: node.fields };
}

export function reduceGroupKeys(node: PlanNode): PlanNode {
  switch (node.kind) {
    case 'scan':
    case 'values':
      return node;
    case 'join':
      return { ...node, left: reduceGroupKeys(node.left), right: reduceGroupKeys(node.right) };
    case 'union':
      return { ...node, inputs: node.inputs.map(reduceGroupKeys) };
    case 'aggregate':
      return rewrite({ ...node, input: reduceGroupKeys(node.input) });
    default:
      return { ...node, input: reduceGroupKeys(node.input) } as PlanNode;
  }
}
