// Shrinking a query that gives a wrong answer: smaller variants of the tree (fewer select items,
// conjuncts, joins, clauses; sub-expressions in place of expressions), tried greedily while the
// wrong answer persists. Variants may be invalid SQL; the caller's check rejects those.

import { width, type Expr, type From, type Group, type Order, type Query, type Select, type SetOp } from './ast.js';
import { simplest } from './translate.js';

/** Removes element i of a list. */
const without = <T>(a: readonly T[], i: number): T[] => [...a.slice(0, i), ...a.slice(i + 1)];
const replaced = <T>(a: readonly T[], i: number, v: T): T[] => [...a.slice(0, i), v, ...a.slice(i + 1)];

/** ORDER BY after output column `pos` (1-based) is dropped. */
function orderWithout(order: readonly Order[], pos: number): Order[] {
  return order.filter((o) => o.pos !== pos).map((o) => (o.pos > pos ? { ...o, pos: o.pos - 1 } : o));
}

function* shrinkList<T>(list: readonly T[], one: (x: T) => Iterable<T>, minLength = 0): Generator<T[]> {
  if (list.length > minLength) for (let i = 0; i < list.length; i++) yield without(list, i);
  for (let i = 0; i < list.length; i++) for (const v of one(list[i])) yield replaced(list, i, v);
}

export function* shrinkExpr(e: Expr): Generator<Expr> {
  if (e.leaf) return;
  for (const k of e.kids) if (k.t === e.t && !k.agg) yield k;
  if (!e.agg && !e.win) yield simplest(e.t);
  if (e.totalOrder) return;
  for (let i = 0; i < e.kids.length; i++) for (const k of shrinkExpr(e.kids[i])) yield { ...e, kids: replaced(e.kids, i, k) };
  if (e.sub) for (const s of shrinkQuery(e.sub)) yield { ...e, sub: s };
}

function* shrinkFrom(f: From): Generator<From> {
  if (f.kind === 'join') {
    yield f.left;
    yield f.right;
    if (f.type !== 'INNER' && f.type !== 'CROSS') yield { ...f, type: 'INNER' };
    for (const on of shrinkList(f.on, shrinkExpr)) yield { ...f, on };
    for (const left of shrinkFrom(f.left)) yield { ...f, left };
    for (const right of shrinkFrom(f.right)) yield { ...f, right };
  } else if (f.kind === 'derived') {
    for (const q of shrinkQuery(f.q)) yield { ...f, q };
  }
}

function* shrinkGroup(g: Group): Generator<Group | undefined> {
  yield undefined;
  if (g.kind !== 'plain') yield { kind: 'plain', keys: g.keys };
  if (g.kind === 'sets' && g.sets) for (const sets of shrinkList(g.sets, () => [], 1)) yield { ...g, sets };
  if (g.kind !== 'sets') for (const keys of shrinkList(g.keys, shrinkExpr, 1)) yield { ...g, keys };
}

function* shrinkSelect(q: Select): Generator<Query> {
  for (let i = 0; i < q.with.length; i++) yield { ...q, with: without(q.with, i) };
  if (q.limit !== undefined) yield { ...q, limit: undefined };
  if (q.order.length) yield { ...q, order: [] };
  if (q.items.length > 1) for (let i = 0; i < q.items.length; i++) yield { ...q, items: without(q.items, i), order: orderWithout(q.order, i + 1) };
  for (const from of shrinkList(q.from, shrinkFrom, 1)) yield { ...q, from };
  for (const where of shrinkList(q.where, shrinkExpr)) yield { ...q, where };
  for (const having of shrinkList(q.having, shrinkExpr)) yield { ...q, having };
  if (q.group) for (const group of shrinkGroup(q.group)) yield { ...q, group };
  if (q.distinct) yield { ...q, distinct: false };
  for (let i = 0; i < q.items.length; i++) for (const e of shrinkExpr(q.items[i].e)) yield { ...q, items: replaced(q.items, i, { ...q.items[i], e }) };
  for (let i = 0; i < q.with.length; i++) for (const c of shrinkQuery(q.with[i].q)) yield { ...q, with: replaced(q.with, i, { ...q.with[i], q: c }) };
}

/** Drops output column i from both operands of a set operation. */
function dropColumn(q: Query, i: number): Query | undefined {
  if (q.kind === 'select') return q.items.length > 1 ? { ...q, items: without(q.items, i), order: orderWithout(q.order, i + 1) } : undefined;
  const left = dropColumn(q.left, i);
  const right = dropColumn(q.right, i);
  return left && right ? { ...q, left, right, order: orderWithout(q.order, i + 1) } : undefined;
}

function* shrinkSetOp(q: SetOp): Generator<Query> {
  for (let i = 0; i < q.with.length; i++) yield { ...q, with: without(q.with, i) };
  yield { ...q.left, with: [...q.with, ...q.left.with] };
  yield { ...q.right, with: [...q.with, ...q.right.with] };
  if (q.limit !== undefined) yield { ...q, limit: undefined };
  if (q.order.length) yield { ...q, order: [] };
  if (q.all) yield { ...q, all: false };
  if (q.op !== 'UNION') yield { ...q, op: 'UNION' };
  for (let i = 0; i < width(q); i++) {
    const d = dropColumn(q, i);
    if (d) yield d;
  }
  for (const left of shrinkQuery(q.left)) yield { ...q, left };
  for (const right of shrinkQuery(q.right)) yield { ...q, right };
}

export function shrinkQuery(q: Query): Generator<Query> {
  return q.kind === 'select' ? shrinkSelect(q) : shrinkSetOp(q);
}

/**
 * Greedy shrinking: the first smaller variant that still fails replaces the query, until none does
 * or the budget of checks runs out.
 */
export async function shrink(q: Query, stillFails: (q: Query) => Promise<boolean>, budget: number): Promise<{ q: Query; checks: number }> {
  let checks = 0;
  let current = q;
  let progress = true;
  while (progress && checks < budget) {
    progress = false;
    for (const candidate of shrinkQuery(current)) {
      if (checks++ >= budget) break;
      if (await stillFails(candidate)) {
        current = candidate;
        progress = true;
        break;
      }
    }
  }
  return { q: current, checks };
}
