// Planning a group of inner-joined relations (FROM a, b, c WHERE ... / JOIN ... ON): predicates on
// one relation are pushed down to it, equalities between two relations become hash-join keys, the
// rest are applied as soon as every relation they read is joined. The join order is chosen by
// estimated size, not by text order: the largest relation is the probe (streamed) side, and each
// step hashes the connected relation that is a key (FK→PK) join if possible, else the smallest.

import { BOOLEAN } from '../data/types.js';
import { andAll, conjuncts, exprKey, referencedColumns, remapColumns, type Expr } from './ir.js';
import { estimateRows, type Field, type PlanNode } from './plan.js';

export interface Relation {
  readonly plan: PlanNode;
  /** Position of the relation's first field in the group's logical (FROM-order) layout. */
  readonly offset: number;
  readonly width: number;
  /** Local column indices forming a unique key, when known. */
  readonly primaryKey?: readonly number[];
}

interface Edge {
  readonly a: number;
  readonly b: number;
  /** Key expressions local to relation a and b. */
  readonly exprA: Expr;
  readonly exprB: Expr;
}

/** Splits `(x AND p) OR (x AND q)` into `x AND (p OR q)`, so shared join conditions become keys. */
export function factorDisjunction(e: Expr): Expr[] {
  if (e.kind !== 'or') return [e];
  const branches = e.args.map(conjuncts);
  const common = branches[0].filter((c) => branches.every((b) => b.some((x) => exprKey(x) === exprKey(c))));
  if (common.length === 0) return [e];
  const keys = new Set(common.map(exprKey));
  const rest = branches.map((b) => andAll(b.filter((x) => !keys.has(exprKey(x)))));
  if (rest.some((r) => r === null)) return common; // one branch is just the common part: the OR is true
  return [...common, { kind: 'or', args: rest as Expr[], type: BOOLEAN }];
}

function selectivity(e: Expr): number {
  if (e.kind === 'call' && e.name === '$eq') return 0.1;
  if (e.kind === 'like' || e.kind === 'in') return 0.25;
  if (e.kind === 'or') return Math.min(1, e.args.reduce((s, a) => s + selectivity(a), 0));
  return 0.33;
}

function isPlainColumn(e: Expr): e is Extract<Expr, { kind: 'column' }> {
  return e.kind === 'column';
}

/** Appends computed key columns to a plan when a key is an expression; returns key column indices. */
function keyColumns(plan: PlanNode, keys: readonly Expr[]): { plan: PlanNode; indices: number[] } {
  if (keys.every(isPlainColumn)) return { plan, indices: keys.map((k) => (k as { index: number }).index) };
  const exprs: Expr[] = plan.fields.map((f, i) => ({ kind: 'column', index: i, type: f.type }));
  const indices = keys.map((k) => {
    if (isPlainColumn(k)) return k.index;
    exprs.push(k);
    return exprs.length - 1;
  });
  const fields: Field[] = exprs.map((e, i) => ({ name: i < plan.fields.length ? plan.fields[i].name : `$key${i}`, type: e.type }));
  return { plan: { kind: 'project', input: plan, exprs, fields }, indices };
}

export function joinPlans(left: PlanNode, right: PlanNode, leftKeyExprs: readonly Expr[], rightKeyExprs: readonly Expr[], filter: Expr | null, joinType: 'inner' | 'left' | 'full' | 'semi' | 'anti', options: { nullAware?: boolean; singleMatch?: boolean } = {}): PlanNode {
  const l = keyColumns(left, leftKeyExprs);
  const r = keyColumns(right, rightKeyExprs);
  // A residual filter indexes left fields ++ right fields; computed key columns shift the right side.
  const shift = l.plan.fields.length - left.fields.length;
  const residual = filter && shift > 0 ? remapColumns(filter, (i) => (i >= left.fields.length ? i + shift : i)) : filter;
  const fields = joinType === 'semi' || joinType === 'anti' ? l.plan.fields : [...l.plan.fields, ...r.plan.fields];
  const join: PlanNode = {
    kind: 'join',
    joinType,
    left: l.plan,
    right: r.plan,
    leftKeys: l.indices,
    rightKeys: r.indices,
    filter: residual,
    nullAware: options.nullAware ?? false,
    singleMatch: options.singleMatch ?? false,
    fields,
  };
  // Drop computed key columns again so callers see left fields (++ right fields).
  const keep: number[] = [];
  for (let i = 0; i < left.fields.length; i++) keep.push(i);
  if (joinType !== 'semi' && joinType !== 'anti') for (let i = 0; i < right.fields.length; i++) keep.push(l.plan.fields.length + i);
  if (keep.length === fields.length) return join;
  const exprs: Expr[] = keep.map((i) => ({ kind: 'column', index: i, type: fields[i].type }));
  return { kind: 'project', input: join, exprs, fields: keep.map((i) => fields[i]) };
}

/**
 * Joins the relations with the given predicates (over the group's logical layout) and returns a
 * plan whose fields are in logical order.
 */
export function planJoinGroup(relations: readonly Relation[], predicates: readonly Expr[]): PlanNode {
  const relationOf = (column: number): number => relations.findIndex((r) => column >= r.offset && column < r.offset + r.width);
  const local = (e: Expr, r: number): Expr => remapColumns(e, (i) => i - relations[r].offset);
  const filters: Expr[][] = relations.map(() => []);
  const edges: Edge[] = [];
  const residuals: { rels: Set<number>; expr: Expr }[] = [];
  const constant: Expr[] = [];

  for (const p of predicates.flatMap((x) => conjuncts(x)).flatMap(factorDisjunction)) {
    const rels = new Set([...referencedColumns(p)].map(relationOf));
    if (rels.size === 0) constant.push(p);
    else if (rels.size === 1) {
      const r = [...rels][0];
      filters[r].push(local(p, r));
    } else {
      if (p.kind === 'call' && p.name === '$eq') {
        const ra = new Set([...referencedColumns(p.args[0])].map(relationOf));
        const rb = new Set([...referencedColumns(p.args[1])].map(relationOf));
        if (ra.size === 1 && rb.size === 1) {
          const a = [...ra][0];
          const b = [...rb][0];
          if (a !== b) {
            edges.push({ a, b, exprA: local(p.args[0], a), exprB: local(p.args[1], b) });
            continue;
          }
        }
      }
      residuals.push({ rels, expr: p });
    }
  }

  const plans = relations.map((r, i) => {
    const f = andAll(filters[i]);
    return f ? ({ kind: 'filter', input: r.plan, predicate: f, fields: r.plan.fields } as PlanNode) : r.plan;
  });
  const estimates = relations.map((r, i) => Math.max(1, estimateRows(r.plan) * filters[i].reduce((s, f) => s * selectivity(f), 1)));

  // Greedy left-deep order.
  let current = estimates.indexOf(Math.max(...estimates));
  let plan = plans[current];
  /** logical column → physical position in `plan` */
  let layout: number[] = Array.from({ length: relations[current].width }, (_, i) => relations[current].offset + i);
  const joined = new Set([current]);
  const applied = new Set<number>();
  while (joined.size < relations.length) {
    const candidates = relations.map((_, i) => i).filter((i) => !joined.has(i));
    const connected = candidates.filter((c) => edges.some((e) => (e.a === c && joined.has(e.b)) || (e.b === c && joined.has(e.a))));
    const isKeyJoin = (c: number): boolean => {
      const pk = relations[c].primaryKey;
      if (!pk || pk.length === 0) return false;
      const cols = new Set<number>();
      for (const e of edges) {
        if (e.a === c && joined.has(e.b) && isPlainColumn(e.exprA)) cols.add(e.exprA.index);
        if (e.b === c && joined.has(e.a) && isPlainColumn(e.exprB)) cols.add(e.exprB.index);
      }
      return pk.every((k) => cols.has(k));
    };
    const pool = connected.length > 0 ? connected : candidates;
    pool.sort((x, y) => Number(isKeyJoin(y)) - Number(isKeyJoin(x)) || estimates[x] - estimates[y]);
    const next = pool[0];
    const leftKeys: Expr[] = [];
    const rightKeys: Expr[] = [];
    const toPhysical = (e: Expr, r: number): Expr => remapColumns(e, (i) => layout.indexOf(relations[r].offset + i));
    for (const e of edges) {
      if (e.a === next && joined.has(e.b)) {
        leftKeys.push(toPhysical(e.exprB, e.b));
        rightKeys.push(e.exprA);
      } else if (e.b === next && joined.has(e.a)) {
        leftKeys.push(toPhysical(e.exprA, e.a));
        rightKeys.push(e.exprB);
      }
    }
    joined.add(next);
    const nextLayout = [...layout, ...Array.from({ length: relations[next].width }, (_, i) => relations[next].offset + i)];
    const ready = residuals.map((r, i) => ({ r, i })).filter(({ r, i }) => !applied.has(i) && [...r.rels].every((x) => joined.has(x)));
    for (const { i } of ready) applied.add(i);
    const filter = andAll(ready.map(({ r }) => remapColumns(r.expr, (c) => nextLayout.indexOf(c))));
    plan = joinPlans(plan, plans[next], leftKeys, rightKeys, filter, 'inner');
    layout = nextLayout;
    current = next;
  }

  // Back to logical order.
  const width = relations.reduce((n, r) => n + r.width, 0);
  const identity = layout.every((l, i) => l === i) && layout.length === width;
  if (!identity) {
    const exprs: Expr[] = Array.from({ length: width }, (_, i) => ({ kind: 'column', index: layout.indexOf(i), type: plan.fields[layout.indexOf(i)].type }));
    plan = { kind: 'project', input: plan, exprs, fields: exprs.map((e, i) => ({ name: plan.fields[layout.indexOf(i)].name, type: e.type })) };
  }
  const rest = andAll([...constant, ...residuals.filter((_, i) => !applied.has(i)).map((r) => r.expr)]);
  return rest ? { kind: 'filter', input: plan, predicate: rest, fields: plan.fields } : plan;
}
