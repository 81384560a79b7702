// prune_columns: every node outputs only the columns something above it reads. Scans read fewer
// columns, and — most important — hash-join build and probe sides stop carrying columns nobody
// uses, which would otherwise be gathered for every joined row.

import { referencedColumns, remapColumns, type Expr } from '../ir.js';
import type { PlanNode } from '../plan.js';

interface Pruned {
  readonly plan: PlanNode;
  /** Old output position → new output position (for the positions that survive). */
  readonly map: ReadonlyMap<number, number>;
}

function positions(keep: readonly number[]): Map<number, number> {
  return new Map(keep.map((old, i) => [old, i]));
}

function remap(e: Expr, map: ReadonlyMap<number, number>): Expr {
  return remapColumns(e, (i) => {
    const n = map.get(i);
    if (n === undefined) throw new Error(`prune_columns: column ${i} was pruned but is still read`);
    return n;
  });
}

function refs(exprs: readonly (Expr | null)[], into = new Set<number>()): Set<number> {
  for (const e of exprs) if (e) referencedColumns(e, into);
  return into;
}

function all(node: PlanNode): Set<number> {
  return new Set(node.fields.map((_, i) => i));
}

function identityMap(width: number): Map<number, number> {
  return new Map(Array.from({ length: width }, (_, i) => [i, i]));
}

function prune(node: PlanNode, required: ReadonlySet<number>): Pruned {
  switch (node.kind) {
    case 'scan': {
      const keep = node.columns.map((_, i) => i).filter((i) => required.has(i));
      if (keep.length === node.columns.length) return { plan: node, map: identityMap(keep.length) };
      return {
        plan: { kind: 'scan', table: node.table, columns: keep.map((i) => node.columns[i]), fields: keep.map((i) => node.fields[i]) },
        map: positions(keep),
      };
    }
    case 'values':
      return { plan: node, map: identityMap(node.fields.length) };
    case 'filter': {
      const child = prune(node.input, refs([node.predicate], new Set(required)));
      const filtered: PlanNode = { kind: 'filter', input: child.plan, predicate: remap(node.predicate, child.map), fields: child.plan.fields };
      // Columns only the predicate reads stop here (e.g. a comment tested by LIKE).
      const keep = [...required].filter((i) => child.map.has(i)).sort((a, b) => a - b);
      if (keep.length === child.plan.fields.length) return { plan: filtered, map: child.map };
      const exprs = keep.map((i) => ({ kind: 'column', index: child.map.get(i) as number, type: node.fields[i].type }) as Expr);
      return { plan: { kind: 'project', input: filtered, exprs, fields: keep.map((i) => node.fields[i]) }, map: positions(keep) };
    }
    case 'project': {
      const keep = node.exprs.map((_, i) => i).filter((i) => required.has(i));
      const child = prune(node.input, refs(keep.map((i) => node.exprs[i])));
      const exprs = keep.map((i) => remap(node.exprs[i], child.map));
      return { plan: { kind: 'project', input: child.plan, exprs, fields: keep.map((i) => node.fields[i]) }, map: positions(keep) };
    }
    case 'aggregate': {
      const need = new Set<number>(node.groupBy);
      for (const a of node.aggregates) {
        a.args.forEach((x) => need.add(x));
        if (a.filter !== null) need.add(a.filter);
      }
      const child = prune(node.input, need);
      const m = (i: number): number => child.map.get(i) as number;
      return {
        plan: {
          ...node,
          input: child.plan,
          groupBy: node.groupBy.map(m),
          aggregates: node.aggregates.map((a) => ({ ...a, args: a.args.map(m), filter: a.filter === null ? null : m(a.filter) })),
        },
        map: identityMap(node.fields.length),
      };
    }
    case 'groupId': {
      const child = prune(node.input, all(node.input));
      return { plan: { ...node, input: child.plan }, map: identityMap(node.fields.length) };
    }
    case 'window': {
      const width = node.input.fields.length;
      const need = new Set([...required].filter((i) => i < width));
      for (const f of node.functions) {
        f.args.forEach((x) => need.add(x));
        f.partitionBy.forEach((x) => need.add(x));
        f.orderBy.forEach((k) => need.add(k.index));
      }
      const child = prune(node.input, need);
      const m = (i: number): number => child.map.get(i) as number;
      const childWidth = child.plan.fields.length;
      const functions = node.functions.map((f) => ({ ...f, args: f.args.map(m), partitionBy: f.partitionBy.map(m), orderBy: f.orderBy.map((k) => ({ ...k, index: m(k.index) })) }));
      const map = new Map(child.map);
      node.functions.forEach((_, k) => map.set(width + k, childWidth + k));
      return { plan: { kind: 'window', input: child.plan, functions, fields: [...child.plan.fields, ...node.fields.slice(width)] }, map };
    }
    case 'sort': {
      const child = prune(node.input, new Set([...required, ...node.keys.map((k) => k.index)]));
      return { plan: { kind: 'sort', input: child.plan, keys: node.keys.map((k) => ({ ...k, index: child.map.get(k.index) as number })), fields: child.plan.fields }, map: child.map };
    }
    case 'limit': {
      const child = prune(node.input, required);
      return { plan: { ...node, input: child.plan, fields: child.plan.fields }, map: child.map };
    }
    case 'union': {
      // Inputs line up by position: keep the same positions in every input.
      const keep = node.fields.map((_, i) => i).filter((i) => required.has(i));
      const inputs = node.inputs.map((input) => {
        const child = prune(input, new Set(keep));
        const exprs = keep.map((i) => ({ kind: 'column', index: child.map.get(i) as number, type: input.fields[i].type }) as Expr);
        return { kind: 'project', input: child.plan, exprs, fields: keep.map((i) => input.fields[i]) } as PlanNode;
      });
      return { plan: { kind: 'union', inputs, fields: keep.map((i) => node.fields[i]) }, map: positions(keep) };
    }
    case 'join': {
      const lw = node.left.fields.length;
      const filterRefs = node.filter ? referencedColumns(node.filter) : new Set<number>();
      const leftNeed = new Set<number>(node.leftKeys);
      const rightNeed = new Set<number>(node.rightKeys);
      const outer = node.joinType === 'semi' || node.joinType === 'anti';
      for (const i of required) {
        if (i < lw) leftNeed.add(i);
        else if (!outer) rightNeed.add(i - lw);
      }
      for (const i of filterRefs) {
        if (i < lw) leftNeed.add(i);
        else rightNeed.add(i - lw);
      }
      const left = prune(node.left, leftNeed);
      const right = prune(node.right, rightNeed);
      const newLw = left.plan.fields.length;
      const combined = new Map<number, number>(left.map);
      for (const [old, now] of right.map) combined.set(lw + old, newLw + now);
      const fields = outer ? left.plan.fields : [...left.plan.fields, ...right.plan.fields];
      const joined: PlanNode = {
        ...node,
        left: left.plan,
        right: right.plan,
        leftKeys: node.leftKeys.map((k) => left.map.get(k) as number),
        rightKeys: node.rightKeys.map((k) => right.map.get(k) as number),
        filter: node.filter ? remap(node.filter, combined) : null,
        fields,
      };
      const map = outer ? left.map : combined;
      // Key and filter columns nobody above reads: a projection drops them, which the fragmenter
      // folds into the join so they are never gathered for the joined rows.
      const keep = [...required].filter((i) => map.has(i)).sort((a, b) => a - b);
      if (outer || keep.length === fields.length) return { plan: joined, map };
      const exprs = keep.map((i) => ({ kind: 'column', index: map.get(i) as number, type: node.fields[i].type }) as Expr);
      return { plan: { kind: 'project', input: joined, exprs, fields: keep.map((i) => node.fields[i]) }, map: positions(keep) };
    }
    case 'output': {
      const child = prune(node.input, all(node.input));
      // The output keeps every column, in order: re-project if the child kept extra ones.
      const exprs = node.fields.map((f, i) => ({ kind: 'column', index: child.map.get(i) as number, type: f.type }) as Expr);
      const input: PlanNode =
        exprs.every((e, i) => (e as { index: number }).index === i) && child.plan.fields.length === exprs.length
          ? child.plan
          : { kind: 'project', input: child.plan, exprs, fields: node.input.fields };
      return { plan: { ...node, input }, map: identityMap(node.fields.length) };
    }
  }
}

export function pruneColumns(plan: PlanNode): PlanNode {
  return prune(plan, all(plan)).plan;
}
