// Random analytic queries over tpch.tiny and the fuzz memory tables: joins of every kind, predicates,
// grouping (sets), aggregates, subqueries, CTEs, set operations, windows and scalar functions.
// Every query is deterministic: LIMIT only under an ORDER BY over all output columns, order-sensitive
// window functions only over a total order. Queries stay small enough for tpch.tiny (no cross
// product of large tables).

import { aggregates, type Cte, type Expr, type Feature, type From, type Group, type Item, type JoinType, type Order, type Query, type Select, type Ty } from './ast.js';
import { Rng } from './rng.js';
import { FOREIGN_KEYS, MEMORY_TABLES, TPCH, type Domain, type TableDef } from './schema.js';
import * as X from './translate.js';

export interface GenOptions {
  /** Constructs to leave out (known to be broken). */
  readonly exclude: ReadonlySet<Feature>;
  /** Use the memory tables (NULLs, duplicates, an empty table). */
  readonly memory: boolean;
  /** Leave out tpch tables with more rows (a quicker run with fewer slow queries). */
  readonly maxTableRows?: number;
}

interface Col {
  readonly ref: string;
  readonly name: string;
  readonly t: Ty;
  readonly dom?: Domain;
  readonly patterns?: readonly string[];
}

interface Rel {
  readonly alias: string;
  /** The base table, for foreign keys (kept by subset derived tables). */
  readonly table?: string;
  readonly cols: readonly Col[];
  readonly rows: number;
  readonly key?: readonly string[];
}

interface Ctx {
  readonly cols: readonly Col[];
  readonly outer: readonly Col[];
  /** Group keys: the expression is evaluated after aggregation. */
  readonly grouped?: readonly Expr[];
  readonly aggOK: boolean;
  readonly winOK: boolean;
  readonly subOK: boolean;
  /** Expressions whose ordering is total (row_number, lag, ROWS frames need one). */
  readonly totalOrder?: readonly Expr[];
  readonly rows: number;
  readonly depth: number;
  readonly noCastDouble?: boolean;
}

interface CteRel {
  readonly name: string;
  readonly types: readonly Ty[];
  readonly rows: number;
}

interface SelectOptions {
  readonly outer: readonly Col[];
  readonly depth: number;
  readonly types?: readonly Ty[];
  /** top: may order/limit and use windows; scalar: one aggregate row; plain: no order/limit. */
  readonly role: 'top' | 'derived' | 'scalar' | 'plain' | 'operand';
  readonly correlate?: boolean;
}

interface Generated {
  readonly q: Select;
  readonly types: readonly Ty[];
  readonly rows: number;
}

const TYPES: readonly Ty[] = ['int', 'int', 'int', 'dbl', 'dbl', 'str', 'str', 'date', 'bool', 'dec'];
const TABLE_WEIGHTS: Record<string, number> = { region: 2, nation: 3, supplier: 3, customer: 2, part: 2, partsupp: 1, orders: 2, lineitem: 1.5 };
const MAX_ROWS = 80_000;
const MAX_CROSS = 20_000;

export class Generator {
  private readonly r: Rng;
  private aliasN = 0;
  private cteN = 0;
  private ctes: CteRel[] = [];
  private inCorrelatedScalar = 0;

  constructor(seed: number, private readonly o: GenOptions) {
    this.r = new Rng(seed);
  }

  private ex(f: Feature): boolean {
    return this.o.exclude.has(f);
  }

  query(): Query {
    this.aliasN = 0;
    this.cteN = 0;
    this.ctes = [];
    return this.topQuery(this.r.weighted([[30, 0], [45, 1], [25, 2]]));
  }

  private topQuery(depth: number): Query {
    const r = this.r;
    if (r.chance(0.15)) return this.setOp(depth, 'top');
    return this.select({ outer: [], depth, role: 'top' }).q;
  }

  // ---- set operations ----

  private setOp(depth: number, role: 'top' | 'derived'): Query {
    const r = this.r;
    const n = r.range(1, 3);
    const types = Array.from({ length: n }, () => r.pick(TYPES.filter((t) => t !== 'bool')));
    const operand = (): Query => this.select({ outer: [], depth: depth - 1, types, role: 'operand' }).q;
    const op = r.weighted<'UNION' | 'INTERSECT' | 'EXCEPT'>([[3, 'UNION'], [1, 'INTERSECT'], [1, 'EXCEPT']]);
    let q: Query = { kind: 'setop', with: [], op, all: op === 'UNION' ? r.chance(0.5) : r.chance(0.15), left: operand(), right: operand(), order: [], limit: undefined };
    if (r.chance(0.2)) {
      const op2 = r.pick(['UNION', 'INTERSECT', 'EXCEPT'] as const);
      q = { kind: 'setop', with: [], op: op2, all: op2 === 'UNION' && r.chance(0.5), left: q, right: operand(), order: [], limit: undefined };
    }
    if (role === 'top' && !this.ex('setop-order-limit') && r.chance(0.5)) {
      const { order, limit } = this.orderLimit(n, true);
      q = { ...q, order, limit };
    }
    return q;
  }

  /** ORDER BY every output column (so ties are equal rows) and maybe a LIMIT. */
  private orderLimit(width: number, limitOK: boolean): { order: Order[]; limit?: number } {
    const r = this.r;
    const positions = r.sample(Array.from({ length: width }, (_, i) => i + 1), width);
    const order = positions.map((pos) => ({ pos, desc: r.chance(0.4), nullsFirst: r.chance(0.5) }));
    return { order, limit: limitOK && r.chance(0.5) ? r.range(0, 25) : undefined };
  }

  // ---- SELECT ----

  private select(o: SelectOptions): Generated {
    const r = this.r;
    const savedCtes = this.ctes;
    const withs: Cte[] = [];
    if ((o.role === 'top' || o.role === 'derived') && o.depth > 0 && r.chance(0.15)) {
      for (let i = r.range(1, 2); i > 0; i--) {
        const name = `w${this.cteN++}`;
        const inner = r.chance(0.25) ? this.setOp(o.depth - 1, 'derived') : this.select({ outer: [], depth: o.depth - 1, role: 'derived' }).q;
        withs.push({ name, q: inner });
        this.ctes = [...this.ctes, { name, types: outputTypes(inner), rows: 200 }];
      }
    }
    const from = this.fromClause(o);
    const cols = from.rels.flatMap((x) => x.cols);
    const total = from.rels.length === 1 && from.rels[0].key ? from.rels[0].key.map((k) => X.col(k, 'int')) : undefined;
    const rowCtx: Ctx = { cols, outer: o.outer, aggOK: false, winOK: false, subOK: o.depth > 0, rows: from.rows, depth: o.depth, totalOrder: total };
    const where = [...from.where];
    if (o.correlate && o.outer.length) {
      const c = this.correlation(cols, o.outer);
      if (c) where.push(c);
    }
    for (let i = r.weighted([[3, 0], [4, 1], [2, 2], [o.role === 'top' ? 1 : 0, 3]]); i > 0; i--) where.push(this.bool(rowCtx, r.range(0, 2)));

    // grouping
    let group: Group | undefined;
    let grouped = false;
    const g = o.role === 'scalar' ? 'global' : r.weighted<'none' | 'plain' | 'global' | 'sets'>([[45, 'none'], [30, 'plain'], [12, 'global'], [this.ex('grouping-sets') ? 0 : 13, 'sets']]);
    let keys: Expr[] = [];
    if (g === 'plain' || g === 'sets') {
      const n = r.range(1, 3);
      for (let i = 0; i < n; i++) keys.push(this.groupKey(rowCtx));
      keys = dedupe(keys);
      if (g === 'plain') group = { kind: 'plain', keys };
      else {
        const kind = r.pick(['rollup', 'cube', 'sets'] as const);
        const sets = kind === 'sets' ? Array.from({ length: r.range(1, 3) }, () => r.sample(keys.map((_, i) => i), r.range(0, keys.length)).sort()) : undefined;
        // every key in some grouping set: the select list may use any of them
        if (sets && keys.some((_, i) => !sets.some((x) => x.includes(i)))) sets.push(keys.map((_, i) => i));
        group = { kind, keys, sets };
      }
      grouped = true;
    } else if (g === 'global') grouped = true;

    const itemCtx: Ctx = grouped
      ? { ...rowCtx, grouped: keys, aggOK: true, winOK: o.role === 'top', subOK: false, totalOrder: group?.kind === 'plain' ? keys : undefined, rows: Math.min(from.rows, 100) }
      : { ...rowCtx, winOK: o.role === 'top' };
    const width = o.types?.length ?? r.weighted([[3, 1], [4, 2], [3, 3], [2, 4]]);
    const types = o.types ?? Array.from({ length: width }, () => r.pick(TYPES));
    const items: Item[] = [];
    for (let i = 0; i < width; i++) {
      const t = types[i];
      const key = keys.find((k) => k.t === t);
      if (group && key && r.chance(0.4)) items.push({ e: r.pick(keys.filter((k) => k.t === t)) });
      else if (group && group.kind !== 'plain' && t === 'int' && r.chance(0.2)) items.push({ e: X.call('grouping', r.sample(keys, r.range(1, keys.length)), 'int') });
      else if (itemCtx.winOK && r.chance(0.2)) items.push({ e: this.window(t, itemCtx) });
      else items.push({ e: this.expr(t, itemCtx, r.range(0, 2)) });
    }
    const having: Expr[] = [];
    if (grouped && r.chance(0.3)) for (let i = r.range(1, 2); i > 0; i--) having.push(this.bool({ ...itemCtx, winOK: false }, 2));
    const distinct = o.role !== 'scalar' && r.chance(0.1);
    let order: Order[] = [];
    let limit: number | undefined;
    if ((o.role === 'top' && r.chance(0.4)) || (o.role === 'derived' && r.chance(0.15))) ({ order, limit } = this.orderLimit(width, true));
    else if (o.role === 'top' && r.chance(0.1)) order = [{ pos: 1, desc: r.chance(0.5), nullsFirst: r.chance(0.5) }];
    // a large result is mostly transfer and comparison time: keep the top rows
    if (o.role === 'top' && !grouped && from.rows > 3000 && limit === undefined) ({ order, limit } = { order: this.orderLimit(width, false).order, limit: r.range(1, 50) });
    this.ctes = savedCtes;
    const rows = g === 'global' ? 1 : grouped ? Math.min(from.rows, 200) : from.rows;
    return { q: { kind: 'select', with: withs, distinct, items, from: from.froms, where, group, having, order, limit }, types, rows };
  }

  private groupKey(ctx: Ctx): Expr {
    const r = this.r;
    if (r.chance(0.7) && ctx.cols.length) {
      const c = r.pick(ctx.cols);
      return X.col(c.ref, c.t);
    }
    const e = this.expr(r.pick(TYPES), { ...ctx, subOK: false, noCastDouble: this.ex('cast-double-key') }, 1);
    // a bare literal in GROUP BY is an ordinal
    if (e.leaf && !renderRef(e).includes('.') && ctx.cols.length) {
      const c = r.pick(ctx.cols);
      return X.col(c.ref, c.t);
    }
    return e;
  }

  /** inner.x = outer.y on columns of one type, preferring columns of the same name (keys). */
  private correlation(inner: readonly Col[], outer: readonly Col[]): Expr | undefined {
    const r = this.r;
    const same = inner.flatMap((c) => outer.filter((oc) => oc.name === c.name && oc.t === c.t).map((oc) => [c, oc] as const));
    const any = inner.flatMap((c) => outer.filter((oc) => oc.t === c.t && c.t !== 'bool').map((oc) => [c, oc] as const));
    const pairs = same.length && r.chance(0.8) ? same : any;
    if (!pairs.length) return undefined;
    const [c, oc] = r.pick(pairs);
    const op = r.weighted([[8, '='], [1, '<'], [1, '>=']]);
    return X.bin(op, X.col(c.ref, c.t), X.col(oc.ref, oc.t), 'bool');
  }

  // ---- FROM ----

  private fromClause(o: SelectOptions): { froms: From[]; rels: Rel[]; where: Expr[]; rows: number } {
    const r = this.r;
    const maxRels = o.role === 'top' ? 4 : o.role === 'derived' ? 3 : 2;
    const n = Math.min(maxRels, r.weighted([[35, 1], [35, 2], [20, 3], [10, 4]]));
    const froms: From[] = [];
    const where: Expr[] = [];
    const first = this.relation(o);
    let tree: From = first.from;
    let treeRels: Rel[] = [first.rel];
    const rels: Rel[] = [first.rel];
    let rows = first.rel.rows;
    let crossRels = 1;
    for (let i = 1; i < n; i++) {
      let added = false;
      for (let attempt = 0; attempt < 8 && !added; attempt++) {
        const next = this.relation(o);
        const comma = r.chance(0.15);
        const candidates = comma ? rels : treeRels;
        const link = this.link(candidates, next.rel);
        let conds: Expr[];
        if (link) {
          conds = link;
          rows = Math.max(rows, next.rel.rows);
        } else {
          const product = rows * next.rel.rows;
          const crossCap = this.ex('cross-product-false') && crossRels >= 2 ? 0 : MAX_CROSS;
          if (product > crossCap) continue;
          rows = product;
          crossRels++;
          conds = r.chance(0.6) ? [this.joinComparison(candidates, next.rel)].filter((c): c is Expr => c !== undefined) : [];
        }
        if (rows > MAX_ROWS) continue;
        // extra conditions: another one between the same pair, or one on a single side
        if (r.chance(0.35)) {
          const extra = r.chance(0.5) && !this.ex('multi-cond-same-pair') ? this.joinComparison(candidates, next.rel) : this.cmpWithLiteral(r.chance(0.7) ? next.rel.cols : candidates.flatMap((c) => c.cols));
          if (extra) conds.push(extra);
        }
        if (conds.filter((c) => bothSides(c, next.rel)).length >= 2) conds = conds.map((c, j) => (j === conds.length - 1 ? { ...c, features: ['multi-cond-same-pair'] } : c));
        if (comma) {
          froms.push(tree);
          tree = next.from;
          treeRels = [next.rel];
          where.push(...conds);
        } else {
          const type: JoinType = conds.length === 0 ? r.weighted([[3, 'CROSS'], [1, 'INNER'], [1, 'LEFT'], [1, 'FULL']]) : r.weighted([[40, 'INNER'], [25, 'LEFT'], [15, 'RIGHT'], [15, 'FULL'], [5, 'CROSS']]);
          if (type === 'CROSS') where.push(...conds);
          tree = { kind: 'join', type, left: tree, right: next.from, on: type === 'CROSS' ? [] : conds };
          treeRels = [...treeRels, next.rel];
        }
        rels.push(next.rel);
        added = true;
      }
    }
    froms.push(tree);
    return { froms, rels, where, rows };
  }

  /** Foreign-key equalities between the new relation and one already in scope. */
  private link(existing: readonly Rel[], next: Rel): Expr[] | undefined {
    const r = this.r;
    const options: Expr[][] = [];
    for (const rel of existing) {
      for (const [child, ccols, parent, pcols] of FOREIGN_KEYS) {
        if (ccols.length > 1 && this.ex('multi-cond-same-pair')) continue;
        const pair = rel.table === child && next.table === parent ? [rel, next] : rel.table === parent && next.table === child ? [next, rel] : undefined;
        if (!pair) continue;
        const [c, p] = pair;
        const cc = ccols.map((n) => c.cols.find((x) => x.name === n));
        const pc = pcols.map((n) => p.cols.find((x) => x.name === n));
        if (cc.some((x) => !x) || pc.some((x) => !x)) continue;
        options.push(cc.map((x, i) => X.bin('=', X.col(x!.ref, x!.t), X.col(pc[i]!.ref, pc[i]!.t), 'bool')));
      }
    }
    if (!options.length) return undefined;
    const eqs = r.pick(options);
    if (eqs.length > 1) return eqs.map((e, i) => (i === eqs.length - 1 ? { ...e, features: ['multi-cond-same-pair'] as Feature[] } : e));
    return eqs;
  }

  /** A comparison between a column of the new relation and one of an existing relation. */
  private joinComparison(existing: readonly Rel[], next: Rel): Expr | undefined {
    const r = this.r;
    const pairs = next.cols.flatMap((c) => existing.flatMap((e) => e.cols.filter((x) => x.t === c.t && c.t !== 'bool').map((x) => [c, x] as const)));
    if (!pairs.length) return undefined;
    const [a, b] = r.pick(pairs);
    return X.bin(r.weighted([[4, '='], [1, '<'], [1, '<>'], [1, '>=']]), X.col(b.ref, b.t), X.col(a.ref, a.t), 'bool');
  }

  private cmpWithLiteral(cols: readonly Col[]): Expr | undefined {
    const c = cols.filter((x) => x.t !== 'bool');
    if (!c.length) return undefined;
    const x = this.r.pick(c);
    return X.bin(this.r.pick(['=', '<', '>', '<=', '>=', '<>']), X.col(x.ref, x.t), this.literalFor(x), 'bool');
  }

  private relation(o: SelectOptions): { from: From; rel: Rel } {
    const r = this.r;
    const alias = `a${this.aliasN++}`;
    const kind = r.weighted<'table' | 'subset' | 'memory' | 'derived' | 'cte'>([
      [50, 'table'],
      [15, 'subset'],
      [this.o.memory ? 20 : 0, 'memory'],
      [o.depth > 0 && o.role !== 'scalar' ? 8 : 0, 'derived'],
      [this.ctes.length ? 25 : 0, 'cte'],
    ]);
    if (kind === 'cte') {
      const c = r.pick(this.ctes);
      return { from: { kind: 'table', name: c.name, alias }, rel: { alias, cols: c.types.map((t, i) => ({ ref: `${alias}.c${i}`, name: `c${i}`, t })), rows: c.rows } };
    }
    if (kind === 'derived') {
      const inner = r.chance(0.2) ? { q: this.setOp(o.depth - 1, 'derived'), rows: 200 } : this.select({ outer: [], depth: o.depth - 1, role: 'derived' });
      const types = outputTypes(inner.q);
      return { from: { kind: 'derived', q: inner.q, alias }, rel: { alias, cols: types.map((t, i) => ({ ref: `${alias}.c${i}`, name: `c${i}`, t })), rows: Math.max(1, inner.rows) } };
    }
    const tpch = TPCH.filter((t) => t.rows <= (this.o.maxTableRows ?? Infinity));
    const table = kind === 'memory' ? r.pick(MEMORY_TABLES) : r.weighted(tpch.map((t) => [TABLE_WEIGHTS[t.name], t] as const));
    const cols = table.columns.map((c) => ({ ref: `${alias}.${c.name}`, name: c.name, t: c.t, dom: c.dom, patterns: c.patterns }));
    const key = table.key.map((k) => `${alias}.${k}`);
    if (kind === 'subset' && table.rows > 100) return this.subset(table, alias, cols, key);
    return { from: { kind: 'table', name: table.name, alias }, rel: { alias, table: table.name, cols, rows: table.rows, key } };
  }

  /** (SELECT columns FROM t WHERE key <= n) keeping the column names, so foreign keys still apply. */
  private subset(table: TableDef, alias: string, cols: Col[], key: string[]): { from: From; rel: Rel } {
    const r = this.r;
    const inner = `a${this.aliasN++}`;
    const k = table.columns.find((c) => c.name === table.key[0])!;
    const hi = 'lo' in k.dom ? k.dom.hi : 100;
    const cut = Math.max(1, Math.round(hi * r.pick([0.02, 0.05, 0.1, 0.3])));
    const items = table.columns.map((c) => ({ e: X.col(`${inner}.${c.name}`, c.t), alias: c.name }));
    const q: Select = { kind: 'select', with: [], distinct: false, items, from: [{ kind: 'table', name: table.name, alias: inner }], where: [X.bin('<=', X.col(`${inner}.${k.name}`, 'int'), X.litOf('int', cut), 'bool')], having: [], order: [], limit: undefined };
    return { from: { kind: 'derived', q, alias }, rel: { alias, table: table.name, cols, rows: Math.max(1, Math.round((table.rows * cut) / hi)), key } };
  }

  // ---- expressions ----

  private literalFor(c: Col): Expr {
    return this.literal(c.t, c.dom);
  }

  private literal(t: Ty, dom?: Domain): Expr {
    const r = this.r;
    if (r.chance(0.03)) return X.litOf(t, null);
    if (dom && 'values' in dom && dom.values.length) {
      const v = r.pick(dom.values);
      return X.litOf(t, t === 'int' ? Math.round(Number(v)) : v);
    }
    if (dom && 'lo' in dom) {
      const v = r.range(Math.floor(dom.lo), Math.ceil(dom.hi));
      return X.litOf(t, t === 'str' ? String(v) : v);
    }
    switch (t) {
      case 'int':
        return X.litOf(t, r.range(-2, 30));
      case 'dbl':
        return X.litOf(t, r.pick([0, 0.5, 1, 2.5, 10, 100, 1000, -1.5]));
      case 'dec':
        return X.litOf(t, r.pick([0, 1.25, 2.5, -3.5, 10, 99.99]));
      case 'str':
        return X.litOf(t, r.pick(['a', 'ab', 'B', '', 'AIR', 'F', 'O', 'Brand#13', 'ASIA']));
      case 'date': {
        const d = new Date(Date.UTC(1992, 0, 1) + r.int(2556) * 86_400_000);
        return X.litOf(t, d.toISOString().slice(0, 10));
      }
      case 'bool':
        return X.litOf(t, r.chance(0.7));
    }
  }

  private leaf(t: Ty, ctx: Ctx): Expr {
    const r = this.r;
    if (ctx.grouped) {
      const keys = ctx.grouped.filter((k) => k.t === t);
      const choice = r.weighted([[keys.length ? 4 : 0, 'key'], [ctx.aggOK ? 4 : 0, 'agg'], [1, 'lit']]);
      if (choice === 'key') return r.pick(keys);
      if (choice === 'agg') return this.aggregate(t, ctx);
      return this.literal(t);
    }
    const cols = ctx.cols.filter((c) => c.t === t);
    if (cols.length && r.chance(0.8)) {
      const c = r.pick(cols);
      return X.col(c.ref, c.t);
    }
    if (ctx.outer.length && r.chance(0.05)) {
      const oc = ctx.outer.filter((c) => c.t === t);
      if (oc.length) {
        const c = r.pick(oc);
        return X.col(c.ref, c.t);
      }
    }
    return this.literal(t, cols.length ? r.pick(cols).dom : undefined);
  }

  /** The row-level context aggregate arguments are evaluated in. */
  private rowCtx(ctx: Ctx): Ctx {
    // no outer columns: an aggregate over an outer column belongs to the outer query
    return { ...ctx, grouped: undefined, aggOK: false, winOK: false, outer: [] };
  }

  private aggregate(t: Ty, ctx: Ctx): Expr {
    const r = this.r;
    const row = this.rowCtx(ctx);
    const a = (ty: Ty): Expr => this.expr(ty, row, 1);
    const filter = (): { filter?: Expr } => (r.chance(0.1) ? { filter: this.bool(row, 1) } : {});
    const options: [number, () => Expr][] = [];
    const cmp = (ty: Ty): void => {
      options.push([2, () => X.agg(r.pick(['min', 'max']), [a(ty)], ty, filter())]);
    };
    switch (t) {
      case 'int':
        options.push([3, () => X.agg('count', [], 'int', { star: true, ...filter() })]);
        options.push([2, () => X.agg('count', [a(r.pick(TYPES))], 'int', filter())]);
        options.push([2, () => X.agg('count', [a(r.pick(TYPES))], 'int', { distinct: true })]);
        if (!(this.inCorrelatedScalar && this.ex('count-if-subquery'))) options.push([1, () => ({ ...X.countIf(this.bool(row, 1)), features: this.inCorrelatedScalar ? ['count-if-subquery'] : [] })]);
        options.push([2, () => X.agg('sum', [a('int')], 'int', { distinct: r.chance(0.15), ...filter() })]);
        cmp('int');
        break;
      case 'dbl':
        options.push([2, () => X.agg('avg', [a(r.pick(['int', 'dbl'] as const))], 'dbl', filter())]);
        options.push([2, () => X.agg('sum', [a('dbl')], 'dbl', filter())]);
        cmp('dbl');
        break;
      case 'dec':
        options.push([2, () => X.agg('sum', [a('dec')], 'dec', filter())]);
        cmp('dec');
        break;
      case 'bool':
        options.push([2, () => X.agg(r.pick(['bool_and', 'bool_or']), [this.bool(row, 1)], 'bool')]);
        break;
      default:
        cmp(t);
    }
    return r.weighted(options)();
  }

  private window(t: Ty, ctx: Ctx): Expr {
    const r = this.r;
    const partition = Array.from({ length: r.weighted([[2, 0], [3, 1], [1, 2]]) }, () => this.leafish(ctx));
    const order = Array.from({ length: r.weighted([[2, 0], [3, 1], [1, 2]]) }, () => ({ e: this.leafish(ctx), desc: r.chance(0.4), nullsFirst: r.chance(0.5) }));
    const total = ctx.totalOrder;
    const totalOrder = total ? [...order, ...total.map((e) => ({ e, desc: r.chance(0.3), nullsFirst: false }))] : undefined;
    const arg = (ty: Ty): Expr => this.expr(ty, { ...ctx, winOK: false }, 1);
    const options: [number, () => Expr][] = [];
    const ranked = order.length ? order : [{ e: this.leafish(ctx), desc: false, nullsFirst: true }];
    const frames = ['ROWS BETWEEN 1 PRECEDING AND CURRENT ROW', 'ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING', 'ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING', 'ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING'];
    const aggWindow = (name: string, ty: Ty, argTy: Ty): Expr => {
      if (totalOrder && r.chance(0.35)) return X.windowCall(name, [arg(argTy)], ty, { partition, order: totalOrder, frame: r.pick(frames) }, [], false, true);
      const frame = order.length && r.chance(0.2) ? 'RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW' : undefined;
      const whole = !partition.length && !order.length && (name === 'max' || name === 'min');
      return X.windowCall(name, [arg(argTy)], ty, { partition, order, frame }, whole ? ['window-whole-max'] : []);
    };
    if (t === 'int') {
      options.push([2, () => X.windowCall(r.pick(['rank', 'dense_rank']), [], 'int', { partition, order: ranked })]);
      if (totalOrder) options.push([2, () => X.windowCall('row_number', [], 'int', { partition, order: totalOrder }, [], false, true)]);
      options.push([1, () => X.windowCall('count', [], 'int', { partition, order }, [], true)]);
      options.push([1, () => aggWindow('sum', 'int', 'int')]);
    }
    if (t === 'dbl') {
      options.push([2, () => aggWindow(r.pick(['sum', 'avg']), 'dbl', r.pick(['dbl', 'int'] as const))]);
      options.push([1, () => X.windowCall(r.pick(['percent_rank', 'cume_dist']), [], 'dbl', { partition, order: ranked })]);
    }
    if (t !== 'bool') {
      const whole = !partition.length && !order.length;
      if (!(whole && this.ex('window-whole-max') && ctx.rows > 1000)) options.push([2, () => aggWindow(r.pick(['min', 'max']), t, t)]);
      if (totalOrder) {
        options.push([1, () => X.windowCall(r.pick(['lag', 'lead']), [arg(t)], t, { partition, order: totalOrder }, [], false, true)]);
        options.push([1, () => X.windowCall('first_value', [arg(t)], t, { partition, order: totalOrder, frame: r.pick(frames) }, [], false, true)]);
      }
    }
    if (!options.length) return this.expr(t, { ...ctx, winOK: false }, 1);
    return r.weighted(options)();
  }

  /** A column / key / aggregate: what PARTITION BY and window ORDER BY use. */
  private leafish(ctx: Ctx): Expr {
    for (let i = 0; i < 5; i++) {
      const e = this.leaf(this.r.pick(TYPES.filter((t) => t !== 'bool')), { ...ctx, winOK: false });
      if (!e.leaf || renderRef(e).includes('.')) return e;
    }
    // a literal partition/order key is pointless (and our parser refuses some)
    return this.leaf('int', { ...ctx, winOK: false, grouped: ctx.grouped, aggOK: ctx.aggOK });
  }

  expr(t: Ty, ctx: Ctx, depth: number): Expr {
    const r = this.r;
    if (t === 'bool') return this.bool(ctx, depth);
    if (depth <= 0 || r.chance(0.45)) return this.leaf(t, ctx);
    const d = depth - 1;
    const e = (ty: Ty): Expr => this.expr(ty, ctx, d);
    const options: [number, () => Expr][] = [];
    const common = (): void => {
      options.push([2, () => X.caseWhen(Array.from({ length: r.range(1, 2) }, () => [this.bool(ctx, d), e(t)] as [Expr, Expr]), r.chance(0.7) ? e(t) : undefined, t)]);
      options.push([1, () => X.simpleCase(e(t === 'date' ? 'int' : t), [[this.literal(t === 'date' ? 'int' : t), e(t)]], r.chance(0.7) ? e(t) : undefined, t)]);
      options.push([2, () => X.call('coalesce', [e(t), e(t)], t)]);
      options.push([1, () => X.call('nullif', [e(t), e(t)], t)]);
      if (ctx.subOK && ctx.depth > 0) options.push([1, () => this.scalarSubquery(t, ctx)]);
    };
    switch (t) {
      case 'int':
        options.push([3, () => X.bin(r.pick(['+', '-']), e('int'), e('int'), 'int')]);
        options.push([1, () => X.bin('*', e('int'), X.litOf('int', r.range(0, 3)), 'int')]);
        options.push([1, () => X.intDiv(e('int'), X.litOf('int', r.range(1, 7)))]);
        options.push([1, () => X.bin('%', e('int'), X.litOf('int', r.range(2, 7)), 'int')]);
        options.push([1, () => X.call('abs', [e('int')], 'int')]);
        options.push([2, () => X.call('length', [e('str')], 'int')]);
        options.push([1, () => X.call('strpos', [e('str'), X.litOf('str', r.pick(['a', 'A', 'E', '#']))], 'int')]);
        options.push([2, () => X.call(r.pick(['year', 'month', 'day']), [e('date')], 'int')]);
        options.push([1, () => X.cast(e('dec'), 'BIGINT', 'int')]);
        if (!this.ex('nullif-mixed')) options.push([1, () => ({ ...X.call('nullif', [e('int'), e('dbl')], 'int'), features: ['nullif-mixed'] as Feature[] })]);
        break;
      case 'dbl':
        options.push([3, () => X.bin(r.pick(['+', '-', '*']), e('dbl'), e(r.pick(['int', 'dbl'] as const)), 'dbl')]);
        options.push([1, () => X.bin('/', e('dbl'), X.litOf('dbl', r.pick([2, 3, 0.5, 7])), 'dbl')]);
        options.push([1, () => X.call('abs', [e('dbl')], 'dbl')]);
        options.push([1, () => X.call('round', [e('dbl'), X.litOf('int', r.range(0, 2))], 'dbl')]);
        if (!ctx.noCastDouble) options.push([2, () => X.cast(e('int'), 'DOUBLE', 'dbl')]);
        break;
      case 'dec':
        options.push([2, () => X.bin(r.pick(['+', '-']), e('dec'), e('dec'), 'dec')]);
        options.push([1, () => X.bin('*', e('dec'), X.litOf('int', r.range(0, 3)), 'dec')]);
        options.push([1, () => X.call('abs', [e('dec')], 'dec')]);
        options.push([1, () => X.call('round', [e('dec'), X.litOf('int', 1)], 'dec')]);
        options.push([2, () => X.cast(e('int'), 'DECIMAL(12,2)', 'dec')]);
        break;
      case 'str':
        options.push([2, () => X.call(r.pick(['upper', 'lower', 'trim', 'reverse']), [e('str')], 'str')]);
        options.push([2, () => X.call('substr', r.chance(0.7) ? [e('str'), X.litOf('int', r.range(1, 3)), X.litOf('int', r.range(1, 4))] : [e('str'), X.litOf('int', r.range(1, 4))], 'str')]);
        options.push([2, () => X.bin('||', e('str'), e('str'), 'str')]);
        options.push([1, () => X.call('replace', [e('str'), X.litOf('str', r.pick(['a', 'A', 'E', '#'])), X.litOf('str', r.pick(['', 'x', 'YY']))], 'str')]);
        options.push([1, () => X.cast(e(r.pick(['int', 'date'] as const)), 'VARCHAR', 'str')]);
        options.push([1, () => X.call('lpad', [e('str'), X.litOf('int', r.range(1, 6)), X.litOf('str', '*')], 'str')]);
        break;
      case 'date':
        options.push([2, () => X.addDays(e('date'), r.range(-40, 40))]);
        options.push([1, () => X.dateAdd(r.pick(['day', 'month', 'year'] as const), r.range(-3, 3), e('date'))]);
        options.push([1, () => X.dateTrunc(r.pick(['month', 'year', 'quarter'] as const), e('date'))]);
        break;
    }
    common();
    return r.weighted(options)();
  }

  bool(ctx: Ctx, depth: number): Expr {
    const r = this.r;
    if (depth <= 0) return this.comparison(ctx, 0);
    const d = depth - 1;
    const options: [number, () => Expr][] = [
      [6, () => this.comparison(ctx, d)],
      [2, () => X.bin(r.pick(['AND', 'OR']), this.bool(ctx, d), this.bool(ctx, d), 'bool')],
      [1, () => X.un('NOT ', this.bool(ctx, d), 'bool')],
      [2, () => X.un('', this.expr(r.pick(TYPES), ctx, d), 'bool', r.pick([' IS NULL', ' IS NOT NULL']))],
      [2, () => {
        const t = r.pick(['int', 'dbl', 'date', 'str', 'dec'] as const);
        const x = this.expr(t, ctx, d);
        return X.between(x, this.literal(t, domOf(x, ctx)), this.literal(t, domOf(x, ctx)), r.chance(0.2));
      }],
      [2, () => {
        const t = r.pick(['int', 'str', 'dbl', 'date', 'dec'] as const);
        const x = this.expr(t, ctx, d);
        return X.inList(x, Array.from({ length: r.range(1, 4) }, () => this.literal(t, domOf(x, ctx))), r.chance(0.3));
      }],
      [2, () => {
        const strs = ctx.grouped ? ctx.grouped.filter((k) => k.t === 'str') : ctx.cols.filter((c) => c.t === 'str').map((c) => X.col(c.ref, 'str'));
        const x = strs.length ? r.pick(strs) : this.expr('str', ctx, d);
        const pats = ctx.cols.find((c) => c.ref === renderRef(x))?.patterns ?? ['%a%', 'A%', '%E', '_%'];
        return X.like(x, r.pick(pats), r.chance(0.2));
      }],
      [1, () => X.bin(r.pick(['IS DISTINCT FROM', 'IS NOT DISTINCT FROM']), this.expr('int', ctx, d), this.expr('int', ctx, d), 'bool')],
    ];
    if (!ctx.grouped) {
      const bools = ctx.cols.filter((c) => c.t === 'bool');
      if (bools.length) options.push([2, () => X.col(r.pick(bools).ref, 'bool')]);
    }
    if (ctx.grouped && ctx.aggOK) options.push([2, () => this.aggregate('bool', ctx)]);
    if (ctx.subOK && ctx.depth > 0 && !ctx.grouped) {
      options.push([2, () => this.existsSubquery(ctx)]);
      options.push([2, () => this.inSubquery(ctx)]);
    }
    return r.weighted(options)();
  }

  private comparison(ctx: Ctx, depth: number): Expr {
    const r = this.r;
    const t = r.pick(['int', 'int', 'dbl', 'str', 'date', 'dec'] as const);
    const x = this.expr(t, ctx, depth);
    const op = r.pick(['=', '<>', '<', '<=', '>', '>=']);
    const y = r.chance(0.6) ? this.literal(t, domOf(x, ctx)) : this.expr(t, ctx, depth);
    return X.bin(op, x, y, 'bool');
  }

  // ---- subqueries ----

  private scalarSubquery(t: Ty, ctx: Ctx): Expr {
    const correlate = this.r.chance(0.6);
    if (correlate) this.inCorrelatedScalar++;
    try {
      const g = this.select({ outer: [...ctx.cols, ...ctx.outer], depth: ctx.depth - 1, types: [t], role: 'scalar', correlate });
      return X.subquery('scalar', g.q, t);
    } finally {
      if (correlate) this.inCorrelatedScalar--;
    }
  }

  private existsSubquery(ctx: Ctx): Expr {
    let g = this.select({ outer: [...ctx.cols, ...ctx.outer], depth: ctx.depth - 1, types: [this.r.pick(TYPES)], role: 'plain', correlate: this.r.chance(0.8) });
    for (let i = 0; i < 5 && aggregates(g.q) && this.ex('exists-aggregate'); i++) g = this.select({ outer: [...ctx.cols, ...ctx.outer], depth: ctx.depth - 1, types: [this.r.pick(TYPES)], role: 'plain', correlate: this.r.chance(0.8) });
    if (aggregates(g.q) && this.ex('exists-aggregate')) return this.comparison(ctx, 0);
    return X.subquery(this.r.chance(0.7) ? 'exists' : 'not-exists', g.q, 'bool', undefined, aggregates(g.q) ? ['exists-aggregate'] : []);
  }

  private inSubquery(ctx: Ctx): Expr {
    const t = this.r.pick(['int', 'int', 'str', 'date', 'dbl'] as const);
    const left = this.expr(t, ctx, 1);
    const correlate = this.r.chance(0.3);
    const g = this.select({ outer: [...ctx.cols, ...ctx.outer], depth: ctx.depth - 1, types: [t], role: 'plain', correlate });
    const risky = correlate && aggregates(g.q);
    if (risky && this.ex('in-aggregate-correlated')) return this.comparison(ctx, 0);
    return X.subquery(this.r.chance(0.7) ? 'in' : 'not-in', g.q, 'bool', left, risky ? ['in-aggregate-correlated'] : []);
  }
}

function outputTypes(q: Query): Ty[] {
  return q.kind === 'select' ? q.items.map((i) => i.e.t) : outputTypes(q.left);
}

function dedupe(keys: Expr[]): Expr[] {
  const seen = new Set<string>();
  return keys.filter((k) => {
    const s = renderRef(k);
    if (seen.has(s)) return false;
    seen.add(s);
    return true;
  });
}

function renderRef(e: Expr): string {
  return e.render(e.kids.map(renderRef), 'trino', '');
}

function domOf(e: Expr, ctx: Ctx): Domain | undefined {
  if (!e.leaf) return undefined;
  const ref = renderRef(e);
  return ctx.cols.find((c) => c.ref === ref)?.dom;
}

/** Whether a join condition references the new relation and some other one. */
function bothSides(e: Expr, next: Rel): boolean {
  const refs = new Set<string>();
  const walk = (x: Expr): void => {
    if (x.leaf) {
      const m = /^(a\d+)\./u.exec(renderRef(x));
      if (m) refs.add(m[1]);
    }
    x.kids.forEach(walk);
  };
  walk(e);
  return refs.has(next.alias) && refs.size >= 2;
}
