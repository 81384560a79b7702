// Analysis: a parsed query becomes a logical plan. FROM items become relations joined by the join
// planner; IN/EXISTS conjuncts become semi/anti joins; scalar subqueries become (left) joins —
// correlated ones decorrelated into an aggregation grouped by the correlation keys — so no plan is
// quadratic (except one correlated on inequalities: a join on those conditions, aggregated per
// outer row). Then aggregation, HAVING, the select list, DISTINCT, ORDER BY and LIMIT.

import { AGGREGATE_NAMES } from './aggregate-names.js';
import { BOOLEAN, BIGINT, INTEGER, isOrderable, typeDisplayName, typeEquals, type SqlType } from '../data/types.js';
import type { ColumnMetadata, TableMetadata, ViewDefinition } from '../connectors/catalog.js';
import { EngineError } from '../util/engine-error.js';
import type { AstNode } from './ast.js';
import {
  AGGREGATE_BASE,
  SUBQUERY_BASE,
  WINDOW_BASE,
  aggregateSignature,
  bindExpr,
  call,
  coerce,
  plainSelect,
  columnParts,
  identifierValue,
  loc,
  requireBoolean,
  subqueryAst,
  type AggregateCollector,
  type AnalysisContext,
  type BindContext,
  type SubqueryCollector,
  type WindowCollector,
} from './bind.js';
import type { FrameBound, WindowFunctionSpec } from '../exec/specs.js';
import { DOUBLE } from '../data/types.js';
import { andAll, children, exprKey, hasOuterRef, mapChildren, referencedColumns, remapColumns, type Expr, type LiteralValue } from './ir.js';
import { eagerAggregation } from './eager-aggregation.js';
import { joinPlans, planJoinGroup, type Relation } from './join-planner.js';
import { evaluateConstant } from '../exec/compile/constant.js';
import { optimize } from './optimize/index.js';
import { locateName, parseQuery } from './parse.js';
import { estimateRows, type AggregateCall, type Field, type PlanNode, type SortKey } from './plan.js';
import { Scope, type ScopeField } from './scope.js';
import { commonSuperType } from './types-coercion.js';

export type { AnalysisContext, PlanDependencies } from './bind.js';
export { parseTypeName } from './bind.js';

/** Refused in 'scalar' mode; ScalarSubqueries then answers a plain aggregate per row instead. */
const INEQUALITY_CORRELATION = 'Correlated subqueries with conditions other than equality are supported only in EXISTS and as one plain aggregate (count, sum, avg, min, max)';

/** 'rows': like 'exists', plus the one aggregate's argument as the last field (per-row subqueries). */
type Mode = 'query' | 'scalar' | 'exists' | 'in' | 'rows';

interface Correlation {
  /** Key expressions over the enclosing scope (outer references turned into its columns). */
  readonly outerKeys: Expr[];
  /** Conditions over (enclosing fields ++ this query's output fields), for EXISTS. */
  readonly residual: Expr | null;
}

interface SelectResult {
  readonly plan: PlanNode;
  readonly names: string[];
  /** For subqueries: the correlation; the plan's trailing columns are the inner keys. */
  readonly correlation?: Correlation;
  /** A correlated scalar aggregate's value for outer rows no inner row matches (see valueOverNoRows). */
  readonly valueOverNoRows?: Expr;
}

/**
 * Analyzes and optimizes a query (rules named in `disabledRules` are skipped: the optimizer's and
 * the analyzer's own, eager_aggregation).
 */
export function analyzeQuery(ast: AstNode, ctx: AnalysisContext, disabledRules: ReadonlySet<string> = ctx.disabledRules ?? new Set()): PlanNode {
  const { plan, names } = analyzeSelect(ast, { ...ctx, disabledRules }, undefined, 'query');
  return optimize({ kind: 'output', input: plan, names, fields: plan.fields.map((f, i) => ({ name: names[i], type: f.type })) }, disabledRules);
}

const col = (index: number, type: SqlType): Expr => ({ kind: 'column', index, type });

function identityExprs(fields: readonly Field[]): Expr[] {
  return fields.map((f, i) => col(i, f.type));
}

function project(input: PlanNode, exprs: readonly Expr[], names?: readonly string[]): PlanNode {
  return { kind: 'project', input, exprs, fields: exprs.map((e, i) => ({ name: names?.[i] ?? input.fields[i]?.name ?? `$${i}`, type: e.type })) };
}

// ---------------------------------------------------------------------------------------------
// FROM

interface FromResult {
  readonly scope: Scope;
  readonly relations: Relation[];
  readonly conditions: Expr[];
}

function aliasWithColumns(raw: unknown): { alias: string | undefined; columns: string[] | null } {
  if (raw === null || raw === undefined) return { alias: undefined, columns: null };
  const text = String(raw);
  const m = /^\s*("?[^"(]+"?)\s*\(([^)]*)\)\s*$/u.exec(text);
  if (!m) return { alias: text.replace(/^"|"$/gu, '').toLowerCase(), columns: null };
  return { alias: m[1].replace(/^"|"$/gu, '').toLowerCase(), columns: m[2].split(',').map((c) => c.trim().replace(/^"|"$/gu, '').toLowerCase()) };
}

function analyzeValues(values: AstNode, item: AstNode, ctx: AnalysisContext): { plan: PlanNode; fields: ScopeField[] } {
  const { alias, columns } = aliasWithColumns(item.as);
  const empty: BindContext = { scope: new Scope([]), ctx, aggregates: null, subqueries: null };
  const rows = (values.values as AstNode[]).map((r) => (r.type === 'expr_list' ? (r.value as AstNode[]) : [r]).map((e) => bindExpr(e, empty)));
  const width = rows[0]?.length ?? 0;
  if (rows.some((r) => r.length !== width)) throw new EngineError('TYPE_MISMATCH', 'Values rows have mismatched sizes', loc(values) ?? locateName(ctx.sql, ['values']));
  const types = Array.from({ length: width }, (_, c) => {
    let t: SqlType | undefined = rows[0][c].type;
    for (const r of rows) t = t && commonSuperType(t, r[c].type);
    if (!t) throw new EngineError('TYPE_MISMATCH', `Values rows have mismatched types in column ${c + 1}`, loc(values) ?? locateName(ctx.sql, ['values']));
    return t;
  });
  if (columns && columns.length !== width) throw new EngineError('GENERIC_USER_ERROR', `Column alias list has ${columns.length} entries but VALUES has ${width} columns`, loc(item));
  const literalRows = rows.map((r) =>
    r.map((e, c) => {
      if (hasOuterRef(e) || maxColumn(e) >= 0) throw new EngineError('NOT_SUPPORTED', 'VALUES rows must be constant expressions', loc(values));
      return { kind: 'literal', value: evaluateConstant(coerce(e, types[c])), type: types[c] } as Expr;
    }),
  );
  const fields = types.map((t, c) => ({ name: columns?.[c] ?? `_col${c}`, type: t }));
  return { plan: { kind: 'values', rows: literalRows, fields }, fields: fields.map((f) => ({ ...f, relation: alias })) };
}

function analyzeRelation(item: AstNode, ctx: AnalysisContext): { plan: PlanNode; fields: ScopeField[]; primaryKey?: number[] } {
  if (item.expr?.type === 'values') return analyzeValues(item.expr, item, ctx);
  const derived = subqueryAst(item.expr);
  if (derived) {
    const { alias, columns } = aliasWithColumns(item.as);
    const { plan, names } = analyzeSelect(derived, ctx, undefined, 'query');
    if (columns && columns.length !== names.length) throw new EngineError('GENERIC_USER_ERROR', `Column alias list has ${columns.length} entries but '${alias}' has ${names.length} columns available`, loc(item));
    return { plan, fields: plan.fields.map((f, i) => ({ name: (columns?.[i] ?? names[i]).toLowerCase(), relation: alias, type: f.type })) };
  }
  if (typeof item.table !== 'string') throw new EngineError('NOT_SUPPORTED', 'This kind of FROM item is not supported yet', loc(item));
  const name = item.table.toLowerCase();
  const cte = !item.db && !item.schema ? ctx.ctes?.get(name) : undefined;
  if (cte) {
    const alias = (item.as ? String(item.as) : name).toLowerCase();
    const { plan, names } = analyzeSelect(cte.ast, { ...ctx, ctes: withoutCte(ctx.ctes, name) }, undefined, 'query');
    if (cte.columns && cte.columns.length !== names.length) throw new EngineError('GENERIC_USER_ERROR', `WITH query '${name}' has ${names.length} columns but ${cte.columns.length} names`, locateName(ctx.sql, [name]));
    return { plan, fields: plan.fields.map((f, i) => ({ name: (cte.columns?.[i] ?? names[i]).toLowerCase(), relation: alias, type: f.type })) };
  }
  const view = resolveView(item, ctx);
  if (view) return analyzeView(view, item, ctx);
  const table = resolveTable(item, ctx);
  const { alias } = aliasWithColumns(item.as);
  const relation = alias ?? table.name;
  return {
    plan: { kind: 'scan', table, columns: table.columns.map((_, i) => i), fields: table.columns.map((c) => ({ name: c.name, type: c.type })) },
    fields: table.columns.map((c) => ({ name: c.name, relation, type: c.type })),
    primaryKey: table.primaryKey ? [...table.primaryKey] : undefined,
  };
}

function withoutCte(ctes: AnalysisContext['ctes'], name: string): AnalysisContext['ctes'] {
  if (!ctes) return ctes;
  const m = new Map(ctes);
  m.delete(name);
  return m;
}

/**
 * The FROM list with CROSS and NATURAL read as join keywords: after an unaliased relation the
 * parser takes them for its alias (`nation CROSS JOIN region` is `nation AS cross` joined to
 * region without a condition). Both are reserved words (in Trino too), so neither is an alias.
 */
function joinKeywordsRead(from: AstNode[]): AstNode[] {
  return from.map((item, i) => {
    const next = from[i + 1];
    const previous = from[i - 1];
    const keyword = (node: AstNode | undefined): string => String(node?.as ?? '').toUpperCase();
    let read = item;
    if ((keyword(item) === 'CROSS' || keyword(item) === 'NATURAL') && next?.join) read = { ...read, as: null };
    const before = keyword(previous);
    if (item.join && !item.on && !item.using && (before === 'CROSS' || before === 'NATURAL')) {
      read = { ...read, join: before === 'CROSS' ? 'CROSS JOIN' : `NATURAL ${String(item.join)}` };
    }
    return read;
  });
}

function analyzeFrom(from: AstNode[], ctx: AnalysisContext, outer: Scope | undefined): FromResult {
  let relations: Relation[] = [];
  let fields: ScopeField[] = [];
  let conditions: Expr[] = [];
  for (const item of joinKeywordsRead(from)) {
    const rel = analyzeRelation(item, ctx);
    const joinKind = String(item.join ?? '').toUpperCase().replace(/\s+OUTER/u, '');
    const using = item.using ? joinUsing(item, fields, rel.fields, joinKind, ctx) : null;
    if (joinKind.startsWith('NATURAL')) throw new EngineError('NOT_SUPPORTED', 'NATURAL JOIN is not supported', loc(item));
    if (joinKind !== '' && joinKind !== 'CROSS JOIN' && !item.on && !item.using) {
      throw new EngineError('SYNTAX_ERROR', `${joinKind} needs ON or USING (CROSS JOIN joins without a condition)`, loc(item));
    }
    if (joinKind === 'LEFT JOIN' || joinKind === 'RIGHT JOIN' || joinKind === 'FULL JOIN') {
      const left = planJoinGroup(relations, conditions);
      const leftWidth = fields.length;
      const allFields = using ? using.fields : [...fields, ...rel.fields];
      const scope = new Scope(allFields, outer);
      const on = using ? using.on : item.on ? bindExpr(item.on, { scope, ctx, aggregates: null, subqueries: null }) : null;
      if (on) requireBoolean(on, 'JOIN condition', item.on, ctx);
      plannedOuterJoin: {
        const leftKeys: Expr[] = [];
        const rightKeys: Expr[] = [];
        const rightOnly: Expr[] = [];
        const leftOnly: Expr[] = [];
        const residual: Expr[] = [];
        for (const c of on ? conjunctList(on) : []) {
          const side = sideOf(c, leftWidth);
          if (side === 'right') rightOnly.push(remapColumns(c, (i) => i - leftWidth));
          else if (side === 'left') leftOnly.push(c);
          else if (c.kind === 'call' && c.name === '$eq' && sideOf(c.args[0], leftWidth) !== 'both' && sideOf(c.args[1], leftWidth) !== 'both' && sideOf(c.args[0], leftWidth) !== sideOf(c.args[1], leftWidth)) {
            const [l, r] = sideOf(c.args[0], leftWidth) === 'left' ? [c.args[0], c.args[1]] : [c.args[1], c.args[0]];
            leftKeys.push(l);
            rightKeys.push(remapColumns(r, (i) => i - leftWidth));
          } else residual.push(c);
        }
        if (joinKind === 'LEFT JOIN') {
          // Conditions on the right side only filter what can match: push them below the join.
          const right = rightOnly.length ? ({ kind: 'filter', input: rel.plan, predicate: andAll(rightOnly) as Expr, fields: rel.plan.fields } as PlanNode) : rel.plan;
          // Hash the smaller side: a small preserved side is hashed with match tracking (fragment.ts).
          const fromPreserved = leftKeys.length > 0 && estimateRows(right) > 2 * estimateRows(left);
          const joined = joinPlans(left, right, leftKeys, rightKeys, andAll([...leftOnly, ...residual]), 'left', { markLeft: fromPreserved });
          relations = [{ plan: joined, offset: 0, width: allFields.length }];
          break plannedOuterJoin;
        }
        if (joinKind === 'RIGHT JOIN') {
          // The preserved side streams: probe the right relation, hash the left group, then restore the field order.
          const left2 = leftOnly.length ? ({ kind: 'filter', input: left, predicate: andAll(leftOnly) as Expr, fields: left.fields } as PlanNode) : left;
          const rightWidth = rel.fields.length;
          const swap = (e: Expr): Expr => remapColumns(e, (i) => (i < leftWidth ? i + rightWidth : i - leftWidth));
          const joined = joinPlans(rel.plan, left2, rightKeys, leftKeys, andAll([...rightOnly.map((e) => remapColumns(e, (i) => i)), ...residual.map(swap)]), 'left');
          const exprs = allFields.map((f, i) => col(i < leftWidth ? rightWidth + i : i - leftWidth, f.type));
          relations = [{ plan: project(joined, exprs, allFields.map((f) => f.name)), offset: 0, width: allFields.length }];
          break plannedOuterJoin;
        }
        // FULL = LEFT JOIN, plus the right rows that found no partner (an anti join), NULL-extended.
        const condition = andAll([...leftOnly, ...rightOnly.map((e) => remapColumns(e, (i) => i + leftWidth)), ...residual]);
        const leftJoined = joinPlans(left, rel.plan, leftKeys, rightKeys, condition, 'left');
        const rightWidth = rel.fields.length;
        const swapped = condition ? remapColumns(condition, (i) => (i < leftWidth ? i + rightWidth : i - leftWidth)) : null;
        const unmatched = joinPlans(rel.plan, left, rightKeys, leftKeys, swapped, 'anti');
        const extended = project(
          unmatched,
          allFields.map((f, i) => (i < leftWidth ? ({ kind: 'literal', value: null, type: f.type } as Expr) : col(i - leftWidth, f.type))),
          allFields.map((f) => f.name),
        );
        const joined: PlanNode = { kind: 'union', inputs: [leftJoined, extended], fields: leftJoined.fields };
        relations = [{ plan: joined, offset: 0, width: allFields.length }];
        if (using && using.coalesced.length > 0) {
          // FULL JOIN ... USING: each key is the non-NULL one of its two copies, after all fields.
          const exprs = [...allFields.map((f, i) => col(i, f.type)), ...using.coalesced.map((c) => c.expr)];
          const names = [...allFields.map((f) => f.name), ...using.coalesced.map((c) => c.field.name)];
          relations = [{ plan: project(joined, exprs, names), offset: 0, width: exprs.length }];
          fields = [...allFields, ...using.coalesced.map((c) => c.field)];
          conditions = [];
          continue;
        }
      }
      fields = allFields;
      conditions = [];
      continue;
    }
    if (joinKind !== '' && joinKind !== 'INNER JOIN' && joinKind !== 'JOIN' && joinKind !== 'CROSS JOIN') {
      throw new EngineError('NOT_SUPPORTED', `${joinKind} is not supported`, loc(item));
    }
    relations.push({ plan: rel.plan, offset: fields.length, width: rel.fields.length, primaryKey: rel.primaryKey });
    if (using) {
      fields = using.fields;
      if (using.on) conditions.push(using.on);
      continue;
    }
    fields = [...fields, ...rel.fields];
    if (item.on) {
      const on = bindExpr(item.on, { scope: new Scope(fields, outer), ctx, aggregates: null, subqueries: null });
      requireBoolean(on, 'JOIN condition', item.on, ctx);
      conditions.push(on);
    }
  }
  return { scope: new Scope(fields, outer), relations, conditions };
}

/**
 * JOIN ... USING (c, ...): the equalities of each named column's left and right copy, and the
 * joined fields with one copy visible per column (the preserved side's; a FULL join adds
 * coalesce(left, right) after all fields, which `coalesced` lists) and the other reachable only
 * qualified. An unqualified `*` lists the USING columns first, as Trino does.
 */
function joinUsing(item: AstNode, left: readonly ScopeField[], right: readonly ScopeField[], joinKind: string, ctx: AnalysisContext): { on: Expr | null; fields: ScopeField[]; coalesced: { expr: Expr; field: ScopeField }[] } {
  const names = (item.using as AstNode[]).map((u) => String(u.value ?? u).toLowerCase());
  const fields: ScopeField[] = [...left, ...right];
  const conjuncts: Expr[] = [];
  const coalesced: { expr: Expr; field: ScopeField }[] = [];
  const where = loc(item) ?? locateName(ctx.sql, ['using']);
  names.forEach((name, rank) => {
    if (names.indexOf(name) !== rank) throw new EngineError('DUPLICATE_COLUMN_NAME', `Column '${name}' appears multiple times in USING clause`, where);
    const l = left.flatMap((f, i) => (f.name === name && f.hidden !== true ? [i] : []));
    const r = right.flatMap((f, i) => (f.name === name ? [i] : []));
    if (l.length === 0) throw new EngineError('COLUMN_NOT_FOUND', `Column '${name}' is missing from left side of join`, where);
    if (r.length === 0) throw new EngineError('COLUMN_NOT_FOUND', `Column '${name}' is missing from right side of join`, where);
    if (l.length > 1 || r.length > 1) throw new EngineError('AMBIGUOUS_NAME', `Column '${name}' is ambiguous`, where);
    const li = l[0];
    const ri = left.length + r[0];
    conjuncts.push(call('$eq', [col(li, fields[li].type), col(ri, fields[ri].type)], item, ctx));
    if (joinKind === 'FULL JOIN') {
      const type = commonSuperType(fields[li].type, fields[ri].type) ?? fields[li].type;
      coalesced.push({ expr: { kind: 'coalesce', args: [coerce(col(li, fields[li].type), type), coerce(col(ri, fields[ri].type), type)], type }, field: { name, relation: undefined, type, usingRank: rank } });
      fields[li] = { ...fields[li], hidden: true };
      fields[ri] = { ...fields[ri], hidden: true };
    } else {
      const [shown, other] = joinKind === 'RIGHT JOIN' ? [ri, li] : [li, ri];
      fields[shown] = { ...fields[shown], usingRank: rank };
      fields[other] = { ...fields[other], hidden: true };
    }
  });
  return { on: andAll(conjuncts), fields, coalesced };
}

function sideOf(e: Expr, leftWidth: number): 'left' | 'right' | 'both' | 'none' {
  let left = false;
  let right = false;
  const walk = (x: Expr): void => {
    if (x.kind === 'column') {
      if (x.index < leftWidth) left = true;
      else right = true;
    }
    children(x).forEach(walk);
  };
  walk(e);
  return left && right ? 'both' : left ? 'left' : right ? 'right' : 'none';
}

function conjunctList(e: Expr): Expr[] {
  return e.kind === 'and' ? e.args.flatMap(conjunctList) : [e];
}

/** Views expanding views deeper than this are refused (a view redefined to reach itself). */
const MAX_VIEW_DEPTH = 16;

/** The view a FROM item names, if its catalog has one by that name (tables are looked up otherwise). */
function resolveView(from: AstNode, ctx: AnalysisContext): ViewDefinition | undefined {
  return viewNamed(fromItemParts(from), ctx);
}

/** The view a (possibly qualified) name denotes in the session, if its catalog has one by that name. */
export function viewNamed(rawParts: readonly string[], ctx: AnalysisContext): ViewDefinition | undefined {
  const { catalog, schema, name } = qualifiedName(rawParts.map((p) => p.toLowerCase()), ctx);
  if (!catalog || !schema) return undefined;
  return ctx.catalogs.get(catalog)?.getView?.(schema, name);
}

/** A name of one to three parts with the session's catalog and schema where they are not written. */
export function qualifiedName(parts: readonly string[], session: { readonly catalog?: string; readonly schema?: string }): { catalog: string | undefined; schema: string | undefined; name: string } {
  return {
    catalog: parts.length === 3 ? parts[0] : session.catalog,
    schema: parts.length >= 2 ? parts[parts.length - 2] : session.schema,
    name: parts[parts.length - 1] as string,
  };
}

/** A FROM item's name parts (catalog, schema, table; as many as written). */
function fromItemParts(from: AstNode): string[] {
  return [from.db, from.schema, from.table].filter((p): p is string => typeof p === 'string' && p.length > 0);
}

/**
 * A view's query planned in place, as a derived table: parsed from its text, its names resolved
 * in the session it was created in, its columns named as they were then.
 */
function analyzeView(view: ViewDefinition, item: AstNode, ctx: AnalysisContext): { plan: PlanNode; fields: ScopeField[] } {
  const depth = (ctx.viewDepth ?? 0) + 1;
  if (depth > MAX_VIEW_DEPTH) throw new EngineError('INVALID_VIEW', `View is recursive: ${view.catalog}.${view.schema}.${view.name}`, loc(item) ?? locateName(ctx.sql, [view.name]));
  ctx.checkTableAccess?.({ catalog: view.catalog, schema: view.schema, name: view.name }, loc(item) ?? locateName(ctx.sql, [view.name]));
  // The view's definition can change: a plan using it is never reused (the memory catalog's metadata is not stable).
  ctx.observed?.tables.push({ catalog: view.catalog, schema: view.schema });
  const viewCtx: AnalysisContext = { ...ctx, sql: view.sql, catalog: view.sessionCatalog, schema: view.sessionSchema, ctes: undefined, viewDepth: depth };
  let analyzed: { plan: PlanNode; names: string[] };
  try {
    analyzed = analyzeSelect(parseQuery(view.sql), viewCtx, undefined, 'query');
  } catch (e) {
    if (e instanceof EngineError && e.errorName !== 'INVALID_VIEW') {
      throw new EngineError('INVALID_VIEW', `View '${view.catalog}.${view.schema}.${view.name}' is stale or in invalid state: ${e.message}`, loc(item) ?? locateName(ctx.sql, [view.name]));
    }
    throw e;
  }
  const { plan, names } = analyzed;
  const stale = names.length !== view.columns.length || plan.fields.some((f, i) => !typeEquals(f.type, (view.columns[i] as ColumnMetadata).type));
  if (stale) throw new EngineError('INVALID_VIEW', `View '${view.catalog}.${view.schema}.${view.name}' is stale or in invalid state`, loc(item) ?? locateName(ctx.sql, [view.name]));
  const { alias } = aliasWithColumns(item.as);
  const relation = alias ?? view.name;
  return { plan, fields: view.columns.map((c) => ({ name: c.name, relation, type: c.type })) };
}

export function resolveTable(from: AstNode, ctx: AnalysisContext): TableMetadata {
  return resolveTableName(fromItemParts(from), ctx);
}

export function resolveTableName(rawParts: readonly string[], ctx: AnalysisContext): TableMetadata {
  const parts = rawParts.map((p) => p.toLowerCase());
  const location = locateName(ctx.sql, parts) ?? locateName(ctx.sql, parts.slice(-1));
  if (parts.length > 3) throw new EngineError('SYNTAX_ERROR', `Too many dots in table name: ${parts.join('.')}`, location);
  const { catalog, schema, name: table } = qualifiedName(parts, ctx);
  if (!catalog) throw new EngineError('MISSING_CATALOG_NAME', 'Catalog must be specified when session catalog is not set', location);
  if (!schema) throw new EngineError('MISSING_SCHEMA_NAME', 'Schema must be specified when session schema is not set', location);
  const connector = ctx.catalogs.get(catalog);
  if (!connector) throw new EngineError('CATALOG_NOT_FOUND', `Catalog '${catalog}' not found`, location);
  if (!connector.listSchemas().includes(schema) && !connector.getTable(schema, table)) {
    throw new EngineError('SCHEMA_NOT_FOUND', `Schema '${schema}' does not exist`, location);
  }
  const meta = connector.getTable(schema, table);
  if (!meta) throw new EngineError('TABLE_NOT_FOUND', `Table '${catalog}.${schema}.${table}' does not exist`, location);
  ctx.checkTableAccess?.({ catalog, schema, name: table }, location);
  ctx.observed?.tables.push(meta);
  return meta;
}

// ---------------------------------------------------------------------------------------------
// Subqueries

/** Splits an AST WHERE into its AND-ed parts. */
function astConjuncts(node: AstNode): AstNode[] {
  if (node.type === 'binary_expr' && String(node.operator).toUpperCase() === 'AND') return [...astConjuncts(node.left), ...astConjuncts(node.right)];
  return [node];
}

interface SemiJoinAst {
  readonly kind: 'in' | 'exists';
  readonly negated: boolean;
  readonly subquery: AstNode;
  readonly value?: AstNode;
  readonly node: AstNode;
}

function asSemiJoin(node: AstNode): SemiJoinAst | undefined {
  if (node.type === 'binary_expr') {
    const op = String(node.operator).toUpperCase();
    if ((op === 'IN' || op === 'NOT IN') && node.right?.type === 'expr_list' && node.right.value?.length === 1) {
      const sub = subqueryAst(node.right.value[0]);
      if (sub) return { kind: 'in', negated: op === 'NOT IN', subquery: sub, value: node.left, node };
    }
    return undefined;
  }
  if (node.type === 'function' && String(node.name?.name?.[0]?.value ?? '').toLowerCase() === 'exists') {
    const sub = subqueryAst(node.args?.value?.[0]);
    if (sub) return { kind: 'exists', negated: false, subquery: sub, node };
  }
  if (node.type === 'unary_expr') {
    const op = String(node.operator).toUpperCase();
    if (op === 'NOT EXISTS') {
      const sub = subqueryAst(node.expr);
      if (sub) return { kind: 'exists', negated: true, subquery: sub, node };
    }
    if (op === 'NOT') {
      const inner = asSemiJoin(node.expr);
      if (inner) return { ...inner, negated: !inner.negated, node };
    }
  }
  return undefined;
}

/** Applies an IN/EXISTS conjunct to the plan of the enclosing query as a semi or anti join. */
/** An IN/EXISTS conjunct analyzed: keys and residual over the enclosing query's logical fields. */
interface PreparedSemiJoin {
  readonly sub: PlanNode;
  readonly leftKeys: Expr[];
  readonly rightKeys: Expr[];
  /** Over (enclosing logical fields ++ subquery fields). */
  readonly residual: Expr | null;
  readonly anti: boolean;
  readonly nullAware: boolean;
}

function prepareSemiJoin(sj: SemiJoinAst, scope: Scope, ctx: AnalysisContext, bc: BindContext): PreparedSemiJoin {
  const mode: Mode = sj.kind === 'in' ? 'in' : 'exists';
  const sub = analyzeSelect(sj.subquery, ctx, scope, mode);
  const corr = sub.correlation ?? { outerKeys: [], residual: null };
  const innerWidth = sub.plan.fields.length;
  const keyCount = corr.outerKeys.length;
  const leftKeys: Expr[] = [...corr.outerKeys];
  const rightKeys: Expr[] = Array.from({ length: keyCount }, (_, i) => col(innerWidth - keyCount + i, sub.plan.fields[innerWidth - keyCount + i].type));
  if (sj.kind === 'in') {
    const value = bindExpr(sj.value as AstNode, bc);
    const inner = sub.plan.fields[0];
    if (sub.names.length - keyCount !== 1) throw new EngineError('GENERIC_USER_ERROR', 'Multiple columns returned by subquery are not yet supported', loc(sj.node));
    const t = commonSuperType(value.type, inner.type);
    if (!t) throw new EngineError('TYPE_MISMATCH', `Value expression and result of subquery must be of the same type: ${typeDisplayName(value.type)} vs ${typeDisplayName(inner.type)}`, loc(sj.node));
    leftKeys.unshift(coerce(value, t));
    rightKeys.unshift(coerce(col(0, inner.type), t));
  }
  return { sub: sub.plan, leftKeys, rightKeys, residual: corr.residual, anti: sj.negated, nullAware: sj.kind === 'in' && sj.negated };
}

/** The enclosing fields a prepared semi join reads (its keys and the outer part of its residual). */
function semiJoinOuterColumns(p: PreparedSemiJoin, outerWidth: number): Set<number> {
  const cols = new Set<number>();
  for (const k of p.leftKeys) referencedColumns(k, cols);
  if (p.residual) for (const c of referencedColumns(p.residual)) if (c < outerWidth) cols.add(c);
  return cols;
}

/**
 * Attaches a semi/anti join to `target`, whose fields are the enclosing logical fields mapped by
 * `map` (the whole group, or the one relation the join reads when pushed down to it).
 */
function attachSemiJoin(target: PlanNode, p: PreparedSemiJoin, map: (i: number) => number, outerWidth: number): PlanNode {
  const leftKeys = p.leftKeys.map((k) => remapColumns(k, map));
  const width = target.fields.length;
  const residual = p.residual ? remapColumns(p.residual, (i) => (i < outerWidth ? map(i) : width + (i - outerWidth))) : null;
  // A subquery side much larger than the outer one: hash the outer rows and stream the subquery
  // through them, marking matches (NOT IN keeps the plain form for its NULL rules).
  const markLeft = !p.nullAware && estimateRows(p.sub) > 2 * estimateRows(target);
  return joinPlans(target, p.sub, leftKeys, p.rightKeys, residual, p.anti ? 'anti' : 'semi', { nullAware: p.nullAware, markLeft });
}

interface PendingScalar {
  readonly plan: PlanNode;
  readonly outerKeys: Expr[];
  /**
   * The value for outer rows the left join finds no subquery row for, when not NULL: an aggregate
   * over no rows (count() is 0), which the decorrelated plan has no group for.
   */
  readonly whenMissing: Expr | null;
  /**
   * A subquery correlated on more than equalities (`(SELECT count(*) FROM t WHERE t.x < o.x)`):
   * `plan` is its rows (fields, then keys, then the aggregate's argument, analyzeSelect 'rows'),
   * left-joined to numbered outer rows on the keys and `residual`, then aggregated per row.
   */
  readonly perRow?: { readonly residual: Expr | null; readonly outerWidth: number; readonly aggregate: AggregateCall['name']; readonly type: SqlType };
}

/** The filtered outer relation that provides a correlated subquery's keys, for a semi-join reduction. */
type Reducer = (outerKeys: readonly Expr[]) => { plan: PlanNode; keys: Expr[] } | undefined;

/**
 * Semi-join reduction ("magic set"): the decorrelated subquery aggregates only rows whose keys the
 * filtered outer relation has, e.g. Q17 averages lineitem over 200 parts instead of 200,000.
 */
function reduceSubquery(plan: PlanNode, keyCount: number, reducer: { plan: PlanNode; keys: Expr[] }): PlanNode {
  if (plan.kind === 'aggregate') {
    if (plan.groupBy.length < keyCount || plan.groupBy.slice(0, keyCount).some((g, i) => g !== i)) return plan;
    const pre = plan.input;
    // Hashing a reducer about as large as the subquery's input would cost more than it saves.
    if (estimateRows(reducer.plan) > 0.5 * estimateRows(pre)) return plan;
    const reduced = pushReduction(pre, Array.from({ length: keyCount }, (_, i) => i), reducer);
    return { ...plan, input: reduced };
  }
  if (plan.kind === 'project' || plan.kind === 'filter' || plan.kind === 'sort' || plan.kind === 'limit') {
    return { ...plan, input: reduceSubquery(plan.input, keyCount, reducer) } as PlanNode;
  }
  return plan;
}

/**
 * Applies the reducing semi join on `keys` (columns of `plan`) below the joins the columns pass
 * unchanged: through projections and filters into the side of a join that provides them (either
 * side of an inner join, the preserved side of a left join, the outer side of a semi/anti join),
 * on top of that side. Q2's subquery then narrows partsupp to the outer query's 800 parts before
 * joining 2,000 suppliers, instead of joining 160,000 partsupp rows to suppliers first. Without a
 * join on the way it stays on top: a filter below is cheaper than the semi join (Q20's shipdate
 * range keeps a seventh of lineitem). A semi join keeps its input's fields: nothing above changes.
 */
function pushReduction(plan: PlanNode, keys: readonly number[], reducer: { plan: PlanNode; keys: Expr[] }): PlanNode {
  return reductionBelowJoin(plan, keys, reducer) ?? joinPlans(plan, reducer.plan, keys.map((k) => col(k, plan.fields[k].type)), reducer.keys, null, 'semi');
}

/** `plan` with the reduction applied inside a join below it; undefined when no join is on the keys' way. */
function reductionBelowJoin(plan: PlanNode, keys: readonly number[], reducer: { plan: PlanNode; keys: Expr[] }): PlanNode | undefined {
  if (plan.kind === 'filter') {
    const input = reductionBelowJoin(plan.input, keys, reducer);
    return input && { ...plan, input };
  }
  if (plan.kind === 'project') {
    const inner = keys.map((k) => plan.exprs[k]);
    if (!inner.every((e): e is Extract<Expr, { kind: 'column' }> => e !== undefined && e.kind === 'column')) return undefined;
    const input = reductionBelowJoin(plan.input, inner.map((e) => e.index), reducer);
    return input && { ...plan, input };
  }
  // A cross join is left alone (its size estimate is no guide to where the rows are).
  if (plan.kind !== 'join' || plan.leftKeys.length === 0) return undefined;
  const leftWidth = plan.left.fields.length;
  if (keys.every((k) => k < leftWidth) && (plan.joinType === 'inner' || plan.joinType === 'left' || plan.joinType === 'semi' || plan.joinType === 'anti')) {
    if (estimateRows(reducer.plan) > 0.5 * estimateRows(plan.left)) return undefined;
    return { ...plan, left: pushReduction(plan.left, keys, reducer) };
  }
  if (keys.every((k) => k >= leftWidth) && plan.joinType === 'inner') {
    if (estimateRows(reducer.plan) > 0.5 * estimateRows(plan.right)) return undefined;
    return { ...plan, right: pushReduction(plan.right, keys.map((k) => k - leftWidth), reducer) };
  }
  return undefined;
}

/** `current` plus one column: a per-row subquery's value for each of its rows (PendingScalar.perRow). */
function appendPerRow(current: PlanNode, pending: PendingScalar, perRow: NonNullable<PendingScalar['perRow']>): PlanNode {
  const width = current.fields.length;
  const whole: WindowFunctionSpec['frame'] = { unit: 'rows', start: { kind: 'unboundedPreceding', offset: 0 }, end: { kind: 'unboundedFollowing', offset: 0 } };
  const rowNumber: WindowFunctionSpec = { name: 'row_number', args: [], argType: null, partitionBy: [], orderBy: [], frame: whole, params: [], type: BIGINT };
  const numbered: PlanNode = { kind: 'window', input: current, functions: [rowNumber], fields: [...current.fields, { name: '$row', type: BIGINT }] };
  const leftWidth = width + 1;
  const inner = pending.plan;
  const argIndex = inner.fields.length - 1;
  const keyCount = pending.outerKeys.length;
  const rightKeys = pending.outerKeys.map((_, i) => col(argIndex - keyCount + i, inner.fields[argIndex - keyCount + i].type));
  const residual = perRow.residual ? remapColumns(perRow.residual, (i) => (i < perRow.outerWidth ? i : leftWidth + (i - perRow.outerWidth))) : null;
  const joined = joinPlans(numbered, inner, pending.outerKeys, rightKeys, residual, 'left');
  const arbitrary = current.fields.map((f, i): AggregateCall => ({ name: 'arbitrary', args: [i], argType: f.type, distinct: false, filter: null, type: f.type }));
  const value: AggregateCall = { name: perRow.aggregate, args: [leftWidth + argIndex], argType: inner.fields[argIndex].type, distinct: false, filter: null, type: perRow.type };
  const grouped: PlanNode = {
    kind: 'aggregate',
    input: joined,
    groupBy: [width],
    aggregates: [...arbitrary, value],
    fields: [{ name: '$row', type: BIGINT }, ...current.fields, { name: '$value', type: perRow.type }],
  };
  return project(grouped, [...current.fields.map((f, i) => col(1 + i, f.type)), col(1 + width, perRow.type)], [...current.fields.map((f) => f.name), `$subquery${width}`]);
}

/** Collects scalar subqueries of one phase (before or after aggregation) and joins them in. */
class ScalarSubqueries implements SubqueryCollector {
  readonly pending: PendingScalar[] = [];
  reducer: Reducer | undefined;
  /**
   * After an aggregation: a correlation key (over the rows before it) as the grouped column that
   * holds it, undefined when no group key does; set before apply.
   */
  groupKeyOf: ((key: Expr) => Expr | undefined) | undefined;

  constructor(
    private readonly ctx: AnalysisContext,
    private readonly allowCorrelation: boolean,
    /** After the aggregation: correlated on group keys only, no per-row subqueries. */
    private readonly afterAggregation = false,
  ) {}

  scalar(node: AstNode, scope: Scope): Expr {
    const ast = subqueryAst(node) as AstNode;
    let sub: ReturnType<typeof analyzeSelect>;
    try {
      sub = analyzeSelect(ast, this.ctx, scope, 'scalar');
    } catch (e) {
      const perRow = e instanceof EngineError && e.message.endsWith(INEQUALITY_CORRELATION) && this.allowCorrelation && !this.afterAggregation ? this.perRow(ast, node, scope) : undefined;
      if (perRow === undefined) throw e;
      return perRow;
    }
    const corr = sub.correlation;
    if (corr && corr.outerKeys.length > 0 && !this.allowCorrelation) {
      throw new EngineError('NOT_SUPPORTED', 'Correlated subqueries are not supported in this position', loc(node) ?? locateName(this.ctx.sql, ['select']));
    }
    const valueIndex = sub.plan.fields.length - (corr?.outerKeys.length ?? 0) - 1;
    if (valueIndex !== 0) throw new EngineError('GENERIC_USER_ERROR', 'Multiple columns returned by subquery are not yet supported', loc(node));
    const k = this.pending.length;
    this.pending.push({ plan: sub.plan, outerKeys: corr?.outerKeys ?? [], whenMissing: (corr?.outerKeys.length ?? 0) > 0 ? (sub.valueOverNoRows ?? null) : null });
    return col(SUBQUERY_BASE + k, sub.plan.fields[0].type);
  }

  /**
   * `value IN (subquery)` as a value, with SQL's three-valued answer: true when some row equals
   * it; false when the subquery has no rows; NULL when the value is NULL or the subquery has a
   * NULL; false otherwise. Three uncorrelated subqueries answer it: the number of rows equal to
   * the value (grouped by the row, left-joined on the value, 0 when missing), the number of rows
   * and the number of NULLs.
   */
  inSubquery(value: Expr, node: AstNode, scope: Scope): Expr {
    const ast = subqueryAst(node) as AstNode;
    const sub = analyzeSelect(ast, this.ctx, scope, 'scalar');
    if (sub.correlation && sub.correlation.outerKeys.length > 0) {
      throw new EngineError('NOT_SUPPORTED', 'A correlated IN subquery is supported only as a WHERE conjunct', loc(node) ?? locateName(this.ctx.sql, ['in']));
    }
    if (sub.plan.fields.length !== 1) throw new EngineError('GENERIC_USER_ERROR', 'Multiple columns returned by subquery are not yet supported', loc(node));
    const rowType = sub.plan.fields[0].type;
    const type = commonSuperType(value.type, rowType);
    if (!type) throw new EngineError('TYPE_MISMATCH', `Value expression and result of subquery must be of the same type: ${typeDisplayName(value.type)} vs ${typeDisplayName(rowType)}`, loc(node));
    const row = coerce(col(0, rowType), type);
    const isNull: Expr = { kind: 'isNull', arg: col(0, rowType), negated: false, type: BOOLEAN };
    const keyed = project(sub.plan, [row, isNull], ['$in', '$null']);
    const count = (filter: number | null): AggregateCall => ({ name: 'count_star', args: [], argType: null, distinct: false, filter, type: BIGINT });
    const perValue: PlanNode = { kind: 'aggregate', input: keyed, groupBy: [0], aggregates: [count(null)], fields: [keyed.fields[0], { name: '$matches', type: BIGINT }] };
    const totals: PlanNode = { kind: 'aggregate', input: keyed, groupBy: [], aggregates: [count(null), count(1)], fields: [{ name: '$rows', type: BIGINT }, { name: '$nulls', type: BIGINT }] };
    const add = (plan: PlanNode, outerKeys: Expr[], zeroWhenMissing: boolean): Expr => {
      this.pending.push({ plan, outerKeys, whenMissing: zeroWhenMissing ? { kind: 'literal', value: 0, type: BIGINT } : null });
      return col(SUBQUERY_BASE + this.pending.length - 1, BIGINT);
    };
    const matches = add(project(perValue, [col(1, BIGINT), col(0, type)], ['$matches', '$in']), [coerce(value, type)], true);
    const rows = add(project(totals, [col(0, BIGINT)], ['$rows']), [], false);
    const nulls = add(project(totals, [col(1, BIGINT)], ['$nulls']), [], false);
    const positive = (e: Expr): Expr => ({ kind: 'call', name: '$gt', args: [e, { kind: 'literal', value: 0, type: BIGINT }], type: BOOLEAN });
    const literal = (v: boolean | null): Expr => ({ kind: 'literal', value: v, type: BOOLEAN });
    const valueIsNull: Expr = { kind: 'isNull', arg: value, negated: false, type: BOOLEAN };
    return {
      kind: 'case',
      whens: [
        { when: positive(matches), then: literal(true) },
        { when: { kind: 'not', arg: positive(rows), type: BOOLEAN }, then: literal(false) },
        { when: { kind: 'or', args: [valueIsNull, positive(nulls)], type: BOOLEAN }, then: literal(null) },
      ],
      otherwise: literal(false),
      type: BOOLEAN,
    };
  }

  /**
   * A scalar subquery correlated on more than equalities, when it is one plain aggregate
   * (count/sum/avg/min/max, no DISTINCT, FILTER, GROUP BY, HAVING or LIMIT): answered per outer
   * row (see PendingScalar.perRow); undefined for other shapes.
   */
  private perRow(ast: AstNode, node: AstNode, scope: Scope): Expr | undefined {
    const columns = (ast.columns ?? []) as AstNode[];
    const call = columns.length === 1 ? columns[0].expr : undefined;
    const name = String(call?.name ?? '').toLowerCase();
    if (call?.type !== 'aggr_func' || !['count', 'sum', 'avg', 'min', 'max'].includes(name) || call.over || call.filter) return undefined;
    if (String(call.args?.distinct ?? '').toUpperCase() === 'DISTINCT' || !plainSelect(ast)) return undefined;
    const rows = analyzeSelect(ast, this.ctx, scope, 'rows');
    const argIndex = rows.plan.fields.length - 1;
    const argType = rows.plan.fields[argIndex].type;
    const signature = aggregateSignature(name, col(argIndex, argType), node, this.ctx);
    this.pending.push({
      plan: rows.plan,
      outerKeys: rows.correlation?.outerKeys ?? [],
      whenMissing: null,
      perRow: { residual: rows.correlation?.residual ?? null, outerWidth: scope.fields.length, aggregate: signature.name, type: signature.type },
    });
    return col(SUBQUERY_BASE + this.pending.length - 1, signature.type);
  }

  /** Left-joins every collected subquery to `plan`, appending one value column each. */
  apply(plan: PlanNode): PlanNode {
    let current = plan;
    const base = plan.fields.length;
    for (const collected0 of this.pending) {
      const width = current.fields.length;
      const collected = this.groupKeyOf ? { ...collected0, outerKeys: collected0.outerKeys.map((k) => this.groupKeyOrFail(k)) } : collected0;
      // A key may read an earlier subquery's value (`(SELECT …) IN (SELECT …)` as a value): by then
      // appended, at base + its number.
      const pending = collected.outerKeys.some(containsSubquery) ? { ...collected, outerKeys: collected.outerKeys.map((k) => ScalarSubqueries.resolve(k, base)) } : collected;
      if (pending.perRow) {
        current = appendPerRow(current, pending, pending.perRow);
        continue;
      }
      const keyCount = pending.outerKeys.length;
      const red = keyCount > 0 && pending === collected ? this.reducer?.(pending.outerKeys) : undefined;
      const p = red ? { ...pending, plan: reduceSubquery(pending.plan, keyCount, red) } : pending;
      const rightKeys = p.outerKeys.map((_, i) => col(1 + i, p.plan.fields[1 + i].type));
      // Correlated: the subquery is [value, keys...] grouped by keys; uncorrelated: one row at most.
      const joined = joinPlans(current, p.plan, p.outerKeys, rightKeys, null, 'left', { singleMatch: true });
      const value = col(width, p.plan.fields[0].type);
      // A matched row has its (non-NULL) join key: a NULL one marks an outer row without a match.
      const missing = (): Expr => ({ kind: 'isNull', arg: col(width + 1, p.plan.fields[1].type), negated: false, type: BOOLEAN });
      const valueExpr: Expr = p.whenMissing && keyCount > 0 ? { kind: 'case', whens: [{ when: missing(), then: p.whenMissing }], otherwise: value, type: value.type } : value;
      void keyCount;
      current = project(joined, [...identityExprs(current.fields), valueExpr], [...current.fields.map((f) => f.name), `$subquery${width}`]);
    }
    return current;
  }

  private groupKeyOrFail(key: Expr): Expr {
    const grouped = this.groupKeyOf?.(key);
    if (grouped === undefined) throw new EngineError('EXPRESSION_NOT_AGGREGATE', 'A subquery after GROUP BY may be correlated only on group keys', locateName(this.ctx.sql, ['select']));
    return grouped;
  }

  /** Maps placeholders to the appended columns (which start at `base`). */
  static resolve(e: Expr, base: number): Expr {
    return remapColumns(e, (i) => (i >= SUBQUERY_BASE ? base + (i - SUBQUERY_BASE) : i));
  }
}

function hasAggregateAst(node: unknown): boolean {
  if (!node || typeof node !== 'object') return false;
  const n = node as AstNode;
  if (n.ast) return false; // aggregates inside subqueries belong to them
  if (n.type === 'aggr_func' && !n.over) return true;
  if (n.type === 'function' && !n.over && AGGREGATE_NAMES.has(String(n.name?.name?.[0]?.value ?? '').toLowerCase())) return true;
  return Object.values(n).some((v) => (Array.isArray(v) ? v.some(hasAggregateAst) : hasAggregateAst(v)));
}

// ---------------------------------------------------------------------------------------------
// Window functions

interface WindowCall {
  readonly name: string;
  readonly args: Expr[];
  readonly partition: Expr[];
  readonly order: { expr: Expr; ascending: boolean; nullsFirst: boolean }[];
  readonly frame: WindowFunctionSpec['frame'];
  readonly params: (number | string | boolean | null)[];
  readonly argType: SqlType | null;
  readonly type: SqlType;
}

const RANKING = new Set(['row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile']);
const VALUE_FUNCTIONS = new Set(['lag', 'lead', 'first_value', 'last_value', 'nth_value']);
/** The window-only functions (aggregates also run as window functions). */
export const WINDOW_FUNCTION_NAMES: readonly string[] = [...RANKING, ...VALUE_FUNCTIONS];

function parseBound(node: AstNode | undefined, ctx: AnalysisContext): FrameBound {
  const text = String(node?.value ?? '').trim().toUpperCase();
  if (text === 'UNBOUNDED PRECEDING') return { kind: 'unboundedPreceding', offset: 0 };
  if (text === 'UNBOUNDED FOLLOWING') return { kind: 'unboundedFollowing', offset: 0 };
  if (text === 'CURRENT ROW') return { kind: 'currentRow', offset: 0 };
  const m = /^(\d+)\s+(PRECEDING|FOLLOWING)$/u.exec(text);
  if (m) return { kind: m[2] === 'PRECEDING' ? 'preceding' : 'following', offset: Number(m[1]) };
  throw new EngineError('NOT_SUPPORTED', `Window frame bound '${text}' is not supported`, loc(node) ?? locateName(ctx.sql, ['over']));
}

class WindowCalls implements WindowCollector {
  readonly calls: WindowCall[] = [];

  window(node: AstNode, bc: BindContext): Expr {
    const ctx = bc.ctx;
    const spec = node.over?.as_window_specification?.window_specification;
    if (!spec) throw new EngineError('NOT_SUPPORTED', 'Named windows are not supported yet', loc(node) ?? locateName(ctx.sql, ['over']));
    const inner: BindContext = { ...bc, windows: null };
    const rawName = node.type === 'function' ? String(node.name?.name?.[0]?.value ?? '') : String(node.name ?? '');
    const name = rawName.toLowerCase();
    const argNodes: AstNode[] = node.type === 'aggr_func' ? (node.args?.expr && node.args.expr.type !== 'star' ? [node.args.expr] : []) : (node.args?.value ?? []);
    if (node.type === 'aggr_func' && String(node.args?.distinct ?? '').toUpperCase() === 'DISTINCT') {
      throw new EngineError('NOT_SUPPORTED', 'DISTINCT in window aggregates is not supported', loc(node) ?? locateName(ctx.sql, [name]));
    }
    const constant = (n: AstNode | undefined): number | string | boolean | null => {
      if (!n) return null;
      const e = bindExpr(n, { ...inner, aggregates: null });
      if (e.kind !== 'literal') throw new EngineError('NOT_SUPPORTED', `${name}() needs a constant here`, loc(n) ?? locateName(ctx.sql, [name]));
      return e.value;
    };
    let args: Expr[] = [];
    let params: (number | string | boolean | null)[] = [];
    let type: SqlType;
    let fnName = name;
    if (RANKING.has(name)) {
      type = name === 'percent_rank' || name === 'cume_dist' ? DOUBLE : BIGINT;
      if (name === 'ntile') {
        const buckets = constant(argNodes[0]);
        if (typeof buckets !== 'number' || buckets < 1) throw new EngineError('INVALID_FUNCTION_ARGUMENT', 'Buckets must be greater than 0', loc(node));
        params = [buckets];
      }
    } else if (VALUE_FUNCTIONS.has(name)) {
      if (argNodes.length === 0) throw new EngineError('FUNCTION_NOT_FOUND', `${name}() needs an argument`, loc(node));
      const x = bindExpr(argNodes[0], inner);
      args = [x];
      type = x.type;
      if (name === 'lag' || name === 'lead') {
        const offset = argNodes[1] ? constant(argNodes[1]) : 1;
        const dflt = argNodes[2] ? constant(argNodes[2]) : null;
        params = [offset, dflt];
      } else if (name === 'nth_value') params = [constant(argNodes[1])];
    } else if (['count', 'sum', 'avg', 'min', 'max'].includes(name)) {
      if (argNodes.length === 0) {
        if (name !== 'count') throw new EngineError('FUNCTION_NOT_FOUND', `${name}(*) is not a valid window function`, loc(node));
        fnName = 'count_star';
        type = BIGINT;
      } else {
        const x = bindExpr(argNodes[0], inner);
        args = [x];
        type = aggregateSignature(name, x, node, ctx).type;
      }
    } else throw new EngineError('FUNCTION_NOT_FOUND', `Window function '${name}' not registered`, loc(node) ?? locateName(ctx.sql, [name]));
    const partition = ((spec.partitionby ?? []) as AstNode[]).map((p) => bindExpr(p.expr ?? p, inner));
    const order = ((spec.orderby ?? []) as AstNode[]).map((o) => ({
      expr: bindExpr(o.expr, inner),
      ascending: String(o.type ?? 'ASC').toUpperCase() !== 'DESC',
      nullsFirst: String(o.nulls ?? '').toLowerCase().includes('first'),
    }));
    let frame: WindowFunctionSpec['frame'] =
      order.length > 0
        ? { unit: 'range', start: { kind: 'unboundedPreceding', offset: 0 }, end: { kind: 'currentRow', offset: 0 } }
        : { unit: 'rows', start: { kind: 'unboundedPreceding', offset: 0 }, end: { kind: 'unboundedFollowing', offset: 0 } };
    const fc = spec.window_frame_clause as AstNode | null;
    if (fc) {
      if (fc.type === 'binary_expr' && String(fc.operator).toUpperCase() === 'BETWEEN') {
        const unit = String(fc.left?.value ?? '').toLowerCase();
        if (unit !== 'rows' && unit !== 'range') throw new EngineError('NOT_SUPPORTED', `Window frame unit ${unit} is not supported`, loc(fc));
        frame = { unit, start: parseBound(fc.right.value[0], ctx), end: parseBound(fc.right.value[1], ctx) };
      } else {
        const unit = String(fc.type ?? '').toLowerCase();
        if (unit !== 'rows' && unit !== 'range') throw new EngineError('NOT_SUPPORTED', 'This window frame is not supported', loc(fc));
        frame = { unit, start: parseBound(fc.expr, ctx), end: { kind: 'currentRow', offset: 0 } };
      }
      if (frame.unit === 'range' && (frame.start.kind === 'preceding' || frame.start.kind === 'following' || frame.end.kind === 'preceding' || frame.end.kind === 'following')) {
        throw new EngineError('NOT_SUPPORTED', 'RANGE frames with offsets are not supported', loc(fc));
      }
    }
    const k = this.calls.length;
    this.calls.push({ name: fnName, args, partition, order, frame, params, argType: args[0]?.type ?? null, type });
    return col(WINDOW_BASE + k, type);
  }

  /** Appends the window node: inputs are `resolve`d expressions over the current plan. */
  apply(plan: PlanNode, resolve: (e: Expr) => Expr): { plan: PlanNode; base: number } {
    const inputs: Expr[] = identityExprs(plan.fields);
    const index = new Map<string, number>();
    const slot = (e: Expr): number => {
      const r = resolve(e);
      const key = exprKey(r);
      let i = index.get(key);
      if (i === undefined) {
        i = inputs.length;
        inputs.push(r);
        index.set(key, i);
      }
      return i;
    };
    const functions: WindowFunctionSpec[] = this.calls.map((c) => ({
      name: c.name,
      args: c.args.map(slot),
      argType: c.argType,
      partitionBy: c.partition.map(slot),
      orderBy: c.order.map((o) => ({ index: slot(o.expr), ascending: o.ascending, nullsFirst: o.nullsFirst })),
      frame: c.frame,
      params: c.params,
      type: c.type,
    }));
    const pre = project(plan, inputs);
    const base = pre.fields.length;
    return { plan: { kind: 'window', input: pre, functions, fields: [...pre.fields, ...functions.map((f, i) => ({ name: `$window${i}`, type: f.type }))] }, base };
  }
}

// ---------------------------------------------------------------------------------------------
// SELECT

function withCtes(ast: AstNode, outerCtx: AnalysisContext): AnalysisContext {
  let ctx = outerCtx;
  if (ast.with) {
    const ctes = new Map(ctx.ctes ?? []);
    for (const w of ast.with as AstNode[]) {
      if (w.recursive) throw new EngineError('NOT_SUPPORTED', 'Recursive WITH queries are not supported', loc(w));
      const name = identifierValue(w.name).toLowerCase();
      const columns = Array.isArray(w.columns) ? (w.columns as AstNode[]).map((c) => identifierValue(c?.type === 'column_ref' ? c.column : c).toLowerCase()) : null;
      ctes.set(name, { ast: w.stmt?.ast ?? w.stmt, columns });
    }
    ctx = { ...ctx, ctes };
  }
  return ctx;
}

function analyzeSelect(ast: AstNode, outerCtx: AnalysisContext, outer: Scope | undefined, mode: Mode): SelectResult {
  const ctx = withCtes(ast, outerCtx);
  if (ast._next) return analyzeSetOperation(ast, ctx, outer, mode);
  if (ast.window) throw new EngineError('NOT_SUPPORTED', 'Named windows (WINDOW clause) are not supported yet', loc(ast) ?? locateName(ctx.sql, ['window']));

  // FROM
  const from: FromResult = !ast.from || ast.from.length === 0 ? { scope: new Scope([], outer), relations: [], conditions: [] } : analyzeFrom(ast.from, ctx, outer);
  const scope = from.scope;
  const sourceWidth = scope.fields.length;

  // WHERE: semi-join conjuncts apart; correlated conjuncts apart; the rest go to the join planner.
  const isAggregation = (ast.groupby?.columns?.length ?? 0) > 0 || hasAggregateAst(ast.columns) || hasAggregateAst(ast.having) || hasAggregateAst(ast.orderby);
  const preSubqueries = new ScalarSubqueries(ctx, true);
  const postSubqueries = new ScalarSubqueries(ctx, true, true);
  const whereBc: BindContext = { scope, ctx, aggregates: null, subqueries: preSubqueries };
  const semiJoins: SemiJoinAst[] = [];
  const local: Expr[] = [];
  const correlated: Expr[] = [];
  const withSubqueries: Expr[] = [];
  for (const c of ast.where ? astConjuncts(ast.where) : []) {
    const sj = asSemiJoin(c);
    if (sj) {
      semiJoins.push(sj);
      continue;
    }
    const e = bindExpr(c, whereBc);
    requireBoolean(e, 'WHERE clause', c, ctx);
    if (hasOuterRef(e)) correlated.push(e);
    else if (maxColumn(e) >= SUBQUERY_BASE) withSubqueries.push(e);
    else local.push(e);
  }

  // Correlation: equalities between an inner expression and an outer one become keys.
  const innerKeys: Expr[] = [];
  const outerKeys: Expr[] = [];
  const residuals: Expr[] = [];
  for (const c of correlated) {
    if (c.kind === 'call' && c.name === '$eq') {
      const [a, b] = c.args;
      if (!hasOuterRef(a) && onlyOuter(b)) {
        innerKeys.push(a);
        outerKeys.push(outerToColumns(b));
        continue;
      }
      if (!hasOuterRef(b) && onlyOuter(a)) {
        innerKeys.push(b);
        outerKeys.push(outerToColumns(a));
        continue;
      }
    }
    residuals.push(c);
  }
  if (residuals.length > 0 && mode !== 'exists' && mode !== 'rows') {
    throw new EngineError('NOT_SUPPORTED', INEQUALITY_CORRELATION, loc(ast.where));
  }

  // IN/EXISTS conjuncts that read a single relation of the group are applied to that relation
  // before the join order is chosen: a selective subquery then shrinks the relation early.
  const prepared = semiJoins.map((sj) => prepareSemiJoin(sj, scope, ctx, whereBc));
  const relations = [...from.relations];
  const later: PreparedSemiJoin[] = [];
  // A semi join keyed on a scalar subquery's value (`(SELECT max(..)) IN (SELECT ..)`) waits for it.
  const afterSubqueries: PreparedSemiJoin[] = [];
  for (const p of prepared) {
    if (p.leftKeys.some(containsSubquery) || (p.residual !== null && containsSubquery(p.residual))) {
      afterSubqueries.push(p);
      continue;
    }
    const cols = semiJoinOuterColumns(p, sourceWidth);
    const owners = new Set([...cols].map((c) => relations.findIndex((r) => c >= r.offset && c < r.offset + r.width)));
    const owner = owners.size === 1 ? relations[[...owners][0]] : undefined;
    // Only a semi join against a small subquery is likely to shrink its relation; an anti join or a
    // large subquery is better applied after the other joins have filtered the rows.
    if (relations.length > 1 && owner && !p.anti && estimateRows(p.sub) <= 0.5 * estimateRows(owner.plan)) {
      const r = owner;
      const plan = attachSemiJoin(r.plan, p, (i) => i - r.offset, sourceWidth);
      relations[[...owners][0]] = { ...r, plan };
    } else later.push(p);
  }
  let plan: PlanNode;
  if (relations.length === 0) {
    plan = { kind: 'values', rows: [[]], fields: [] };
    const where = andAll(local);
    if (where) plan = { kind: 'filter', input: plan, predicate: where, fields: [] };
  } else plan = planJoinGroup(relations, [...from.conditions, ...local]);
  for (const p of later) plan = attachSemiJoin(plan, p, (i) => i, sourceWidth);

  // An EXISTS over an aggregation, HAVING or LIMIT asks whether the query's own rows exist, not
  // the FROM's: it is planned whole, which the decorrelation below cannot do per outer row.
  const limit = limitOf(ast, ctx);
  const shapesRows = mode === 'exists' && (isAggregation || Boolean(ast.having) || limit.count !== null || limit.offset > 0);
  if (shapesRows && (innerKeys.length > 0 || residuals.length > 0)) {
    const same = existenceEquivalent(ast, limit);
    if (same) return analyzeSelect(same, outerCtx, outer, mode);
    throw new EngineError('NOT_SUPPORTED', 'A correlated EXISTS subquery with HAVING, OFFSET, LIMIT 0 or grouping sets is not supported', locateName(ctx.sql, ['exists']));
  }
  if ((mode === 'exists' && !shapesRows) || mode === 'rows') {
    // EXISTS needs only the rows: keep the fields for residual conditions, add the keys (and for
    // 'rows' the aggregate's argument, `1` for count(*), over this query's own fields).
    const argAst = (ast.columns as AstNode[])[0]?.expr?.args?.expr as AstNode | undefined;
    const arg: Expr[] = mode !== 'rows' ? [] : [!argAst || argAst.type === 'star' ? { kind: 'literal', value: 1, type: INTEGER } : bindExpr(argAst, { scope, ctx, aggregates: null, subqueries: null })];
    const exprs = [...identityExprs(plan.fields), ...innerKeys, ...arg];
    const projected = project(plan, exprs, exprs.map((_, i) => (i < plan.fields.length ? plan.fields[i].name : `$key${i}`)));
    const residual = andAll(residuals.map((r) => remapOuterResidual(r, outer as Scope)));
    return { plan: projected, names: projected.fields.map((f) => f.name), correlation: { outerKeys, residual } };
  }

  // SELECT items (expanding *)
  const aggregates: AggregateCollector = { calls: [] };
  const windows = new WindowCalls();
  const itemBc: BindContext = { scope, ctx, aggregates, subqueries: isAggregation ? postSubqueries : preSubqueries, argumentSubqueries: preSubqueries, windows };
  const items: { ast: AstNode | null; expr?: Expr; name: string; alias: boolean }[] = [];
  for (const c of ast.columns as AstNode[]) {
    const e = c.expr as AstNode;
    if (e.type === 'column_ref' && e.column === '*') {
      const qualifier = e.table ? identifierValue(e.table).toLowerCase() : undefined;
      let fields = scope.fields.map((f, i) => ({ f, i })).filter(({ f }) => (qualifier === undefined ? f.hidden !== true : f.relation === qualifier));
      // JOIN ... USING columns first, in their USING order.
      if (qualifier === undefined) fields = [...fields.filter(({ f }) => f.usingRank !== undefined).sort((a, b) => (a.f.usingRank as number) - (b.f.usingRank as number)), ...fields.filter(({ f }) => f.usingRank === undefined)];
      if (qualifier !== undefined && fields.length === 0) throw new EngineError('TABLE_NOT_FOUND', `Table '${qualifier}' not found`, locateName(ctx.sql, [qualifier]));
      if (fields.length === 0) throw new EngineError('NOT_SUPPORTED', 'SELECT * not allowed in queries without FROM clause', loc(e) ?? { lineNumber: 1, columnNumber: 8 });
      for (const { f, i } of fields) items.push({ ast: null, expr: col(i, f.type), name: f.name, alias: false });
    } else {
      items.push({ ast: e, name: c.as ? String(c.as) : implicitName(e, items.length), alias: Boolean(c.as) });
    }
  }
  for (const item of items) if (item.ast) item.expr = bindExpr(item.ast, itemBc);
  const havingExpr = ast.having ? bindExpr(ast.having, { ...itemBc, windows: null }) : null;
  if (havingExpr) requireBoolean(havingExpr, 'HAVING clause', ast.having, ctx);
  const selectExprs = items.map((i) => i.expr as Expr);
  const orderBy = mode === 'query' ? ((ast.orderby ?? []) as AstNode[]).map((o) => bindOrderKey(o, items, itemBc)) : [];

  // A correlated subquery whose keys come from one filtered relation gets a semi-join reduction.
  preSubqueries.reducer = (outerKeys) => {
    const cols = new Set<number>();
    for (const k of outerKeys) referencedColumns(k, cols);
    const ownerOf = (c: number): number => relations.findIndex((r) => c >= r.offset && c < r.offset + r.width);
    const owners = new Set([...cols].map(ownerOf));
    if (owners.size !== 1) return undefined;
    const index = [...owners][0];
    if (index < 0) return undefined;
    const r = relations[index];
    const inR = (e: Expr): boolean => [...referencedColumns(e)].every((c) => c >= r.offset && c < r.offset + r.width);
    const filters = local.filter((e) => referencedColumns(e).size > 0 && inR(e)).map((e) => remapColumns(e, (i) => i - r.offset));
    // The relation as the outer query narrows it: its own filters and the semi joins that read only it.
    let plan = r.plan;
    let narrowed = plan !== from.relations[index].plan || filters.length > 0;
    for (const p of later) {
      const readsOnlyR = [...semiJoinOuterColumns(p, sourceWidth)].every((c) => ownerOf(c) === index);
      if (p.anti || !readsOnlyR || estimateRows(p.sub) > 0.5 * estimateRows(r.plan)) continue;
      plan = attachSemiJoin(plan, p, (i) => i - r.offset, sourceWidth);
      narrowed = true;
    }
    if (!narrowed) return undefined;
    if (filters.length > 0) plan = { kind: 'filter', input: plan, predicate: andAll(filters) as Expr, fields: plan.fields };
    return { plan, keys: outerKeys.map((k) => remapColumns(k, (i) => i - r.offset)) };
  };

  // Scalar subqueries evaluated before aggregation are joined in now.
  if (preSubqueries.pending.length > 0) {
    plan = preSubqueries.apply(plan);
  }
  const preResolve = (e: Expr): Expr => ScalarSubqueries.resolve(e, sourceWidth);
  for (const p of afterSubqueries) {
    if (p.residual !== null && containsSubquery(p.residual)) throw new EngineError('NOT_SUPPORTED', 'A scalar subquery inside a correlated IN or EXISTS condition is not supported', locateName(ctx.sql, ['select']));
    plan = attachSemiJoin(plan, p, (i) => (i >= SUBQUERY_BASE ? sourceWidth + (i - SUBQUERY_BASE) : i), sourceWidth);
  }
  if (withSubqueries.length) plan = { kind: 'filter', input: plan, predicate: andAll(withSubqueries.map(preResolve)) as Expr, fields: plan.fields };

  let post: (e: Expr, node: AstNode | null) => Expr = (e) => (isAggregation ? e : preResolve(e));
  const groupAsts: AstNode[] = ast.groupby?.columns ?? [];
  let groupCount = 0;
  if (isAggregation || innerKeys.length > 0) {
    const grouping = groupingOf(groupAsts, items, itemBc);
    if (grouping.sets && innerKeys.length > 0) throw new EngineError('NOT_SUPPORTED', 'Grouping sets in correlated subqueries are not supported', loc(ast));
    // Its one row per outer row would be missing where no inner row matches (count's 0, max's NULL): refused, not answered wrong.
    if (mode === 'in' && innerKeys.length > 0 && isAggregation && groupAsts.length === 0) throw new EngineError('NOT_SUPPORTED', 'A correlated IN subquery over an aggregation without GROUP BY is not supported yet', loc(ast));
    const groupExprs = [...innerKeys, ...grouping.exprs];
    if (mode === 'scalar' && groupAsts.length > 0 && innerKeys.length > 0) {
      throw new EngineError('NOT_SUPPORTED', 'Correlated subqueries with GROUP BY are not supported', loc(ast));
    }
    if (!isAggregation) {
      // A correlated IN subquery without aggregation: the keys are just extra output columns.
    } else {
      const preExprs: Expr[] = [...groupExprs];
      const preIndex = new Map<string, number>();
      // Grouping sets NULL the group columns outside each set: an aggregate argument equal to a
      // group key reads a copy of its own (max(k) over ROLLUP (k) sees k in the total row too).
      if (!grouping.sets) groupExprs.forEach((e, i) => preIndex.set(exprKey(e), i));
      const slot = (e: Expr): number => {
        const k = exprKey(e);
        let i = preIndex.get(k);
        if (i === undefined) {
          i = preExprs.length;
          preExprs.push(e);
          preIndex.set(k, i);
        }
        return i;
      };
      const calls: AggregateCall[] = aggregates.calls.map((c) => ({
        name: c.name,
        args: c.args.map((a) => slot(preResolve(a))),
        argType: c.args[0]?.type ?? null,
        ...(c.args.length > 1 ? { keyType: c.args[1].type } : {}),
        distinct: c.distinct,
        filter: c.filter ? slot(preResolve(c.filter)) : null,
        type: c.type,
      }));
      let pre: PlanNode = project(plan, preExprs.map(preResolve), preExprs.map((_, i) => `$pre${i}`));
      const groupFields = groupExprs.map((e, i) => ({ name: `$group${i}`, type: e.type }));
      const groupBy = groupExprs.map((_, i) => i);
      const sets = grouping.sets;
      const simpleGroup = !sets && innerKeys.length === 0 && preSubqueries.pending.length === 0 && withSubqueries.length === 0 && later.length === 0;
      const eager = simpleGroup && !ctx.disabledRules?.has('eager_aggregation')
        ? eagerAggregation({ relations, unnarrowed: from.relations.map((r) => r.plan), predicates: [...from.conditions, ...local], groupExprs, calls: aggregates.calls })
        : undefined;
      if (sets) {
        // One scan: rows replicated per grouping set, grouped by (keys, set number).
        pre = { kind: 'groupId', input: pre, groupCount: groupExprs.length, sets, fields: [...pre.fields, { name: '$groupid', type: BIGINT }] };
        groupBy.push(pre.fields.length - 1);
        groupFields.push({ name: '$groupid', type: BIGINT });
      }
      groupCount = groupBy.length;
      const fields = [...groupFields, ...calls.map((c, i) => ({ name: `$agg${i}`, type: c.type }))];
      const globalGroupIds = sets ? sets.flatMap((set, id) => (set.length === 0 ? [id] : [])) : [];
      plan = eager ? { ...eager, fields } : { kind: 'aggregate', input: pre, groupBy, aggregates: calls, ...(globalGroupIds.length > 0 ? { globalGroupIds } : {}), fields };
      const groupKeys = new Map<string, number>();
      groupExprs.forEach((e, i) => groupKeys.set(exprKey(e), i));
      const aggWidth = plan.fields.length;
      const gid = groupExprs.length;
      if (postSubqueries.pending.length > 0) {
        // Correlated on group keys: those are the aggregation's first columns.
        postSubqueries.groupKeyOf = (key) => {
          const i = groupExprs.findIndex((g) => exprKey(g) === exprKey(key));
          return i < 0 ? undefined : col(i, groupExprs[i].type);
        };
        plan = postSubqueries.apply(plan);
      }
      post = (e, node) => ScalarSubqueries.resolve(resolveGrouping(rewritePostAggregate(e, groupKeys, groupCount, node, ctx), sets, gid, ctx), aggWidth);
    }
  }

  // A correlated scalar aggregate has one group per outer row: HAVING NULLs its value rather than
  // dropping the group, so that a missing group means no rows (see valueOverNoRows).
  const scalarPerKey = mode === 'scalar' && outer !== undefined && innerKeys.length > 0 && isAggregation && groupAsts.length === 0 && windows.calls.length === 0;
  if (havingExpr && !scalarPerKey) plan = { kind: 'filter', input: plan, predicate: post(havingExpr, ast.having), fields: plan.fields };

  // Window functions run after grouping and HAVING, before the projection.
  if (windows.calls.length > 0) {
    const beforeWindows = post;
    const applied = windows.apply(plan, (e) => beforeWindows(e, null));
    plan = applied.plan;
    post = (e, node) => remapColumns(beforeWindows(e, node), (i) => (i >= WINDOW_BASE && i < AGGREGATE_BASE ? applied.base + (i - WINDOW_BASE) : i));
  }

  // Projection: select items, correlation keys (subqueries), then hidden ORDER BY expressions.
  const projected = items.map((item) => post(item.expr as Expr, item.ast));
  if (havingExpr && scalarPerKey) projected[0] = { kind: 'case', whens: [{ when: post(havingExpr, ast.having), then: projected[0] }], otherwise: null, type: projected[0].type };
  const names = items.map((i) => i.name);
  const keyOutputs = isAggregation ? innerKeys.map((k, i) => col(i, k.type)) : innerKeys;
  const projExprs = [...projected, ...keyOutputs];
  const visible = projExprs.length;
  const sortKeys: SortKey[] = [];
  for (const key of orderBy) {
    let index: number;
    if (key.output !== undefined) index = key.output;
    else {
      const e = post(key.expr as Expr, key.ast);
      const k = exprKey(e);
      index = projExprs.findIndex((p) => exprKey(p) === k);
      if (index < 0) {
        if (ast.distinct?.type === 'DISTINCT') throw new EngineError('INVALID_COLUMN_REFERENCE', 'For SELECT DISTINCT, ORDER BY expressions must appear in select list', loc(key.ast));
        index = projExprs.length;
        projExprs.push(e);
      }
    }
    if (!isOrderable(projExprs[index].type)) throw new EngineError('TYPE_MISMATCH', `Type ${typeDisplayName(projExprs[index].type)} is not orderable`, loc(key.ast));
    sortKeys.push({ index, ascending: key.ascending, nullsFirst: key.nullsFirst });
  }
  plan = project(plan, projExprs, projExprs.map((_, i) => (i < names.length ? names[i] : `$extra${i}`)));

  if (ast.distinct?.type === 'DISTINCT') plan = { kind: 'aggregate', input: plan, groupBy: plan.fields.map((_, i) => i), aggregates: [], fields: plan.fields };
  if (sortKeys.length) plan = { kind: 'sort', input: plan, keys: sortKeys, fields: plan.fields };
  const { count, offset } = limitOf(ast, ctx);
  if (count !== null || offset > 0) plan = { kind: 'limit', input: plan, count, offset, fields: plan.fields };
  if (projExprs.length > visible) plan = project(plan, projExprs.slice(0, visible).map((e, i) => col(i, e.type)), plan.fields.slice(0, visible).map((f) => f.name));

  const correlation = outer && innerKeys.length > 0 ? { outerKeys, residual: null } : undefined;
  // A correlated scalar aggregate without GROUP BY has one row per outer row, also for no rows.
  const overNoRows = scalarPerKey && count !== 0 && offset === 0 ? valueOverNoRows(projected[0], aggregates.calls, groupCount) : undefined;
  return { plan, names: [...names, ...keyOutputs.map((_, i) => `$key${i}`)], correlation, ...(overNoRows ? { valueOverNoRows: overNoRows } : {}) };
}

// ---------------------------------------------------------------------------------------------
// Set operations

function castTo(plan: PlanNode, types: readonly SqlType[]): PlanNode {
  if (plan.fields.every((f, i) => f.type.id === types[i].id && f.type.precision === types[i].precision && f.type.scale === types[i].scale)) return plan;
  return project(plan, plan.fields.map((f, i) => coerce(col(i, f.type), types[i])));
}

function setOperation(op: string, a: PlanNode, b: PlanNode, ctx: AnalysisContext, node: AstNode): PlanNode {
  if (a.fields.length !== b.fields.length) {
    throw new EngineError('TYPE_MISMATCH', `${op.toUpperCase()} query has different number of fields: ${a.fields.length}, ${b.fields.length}`, loc(node) ?? locateName(ctx.sql, [op.split(' ')[0]]));
  }
  const types = a.fields.map((f, i) => {
    const t = commonSuperType(f.type, b.fields[i].type);
    if (!t) throw new EngineError('TYPE_MISMATCH', `column ${i + 1} in ${op.toUpperCase()} query has incompatible types: ${typeDisplayName(f.type)}, ${typeDisplayName(b.fields[i].type)}`, loc(node) ?? locateName(ctx.sql, [op.split(' ')[0]]));
    return t;
  });
  const left = castTo(a, types);
  const right = castTo(b, types);
  const fields = left.fields;
  const flat = (p: PlanNode): readonly PlanNode[] => (p.kind === 'union' ? p.inputs : [p]);
  const all: PlanNode = { kind: 'union', inputs: [...flat(left), ...flat(right)], fields };
  const distinctAll = (p: PlanNode): PlanNode => ({ kind: 'aggregate', input: p, groupBy: p.fields.map((_, i) => i), aggregates: [], fields: p.fields });
  switch (op) {
    case 'union all':
      return all;
    case 'union':
    case 'union distinct':
      return distinctAll(all);
    case 'intersect':
    case 'intersect distinct':
    case 'except':
    case 'except distinct': {
      // Tag each side, group by every column (NULLs group together, as set operations require)
      // and keep groups seen on the left and (intersect) or not (except) on the right.
      const width = fields.length;
      const tag = (p: PlanNode, isLeft: boolean): PlanNode =>
        project(p, [...identityExprs(p.fields), { kind: 'literal', value: isLeft, type: BOOLEAN }, { kind: 'literal', value: !isLeft, type: BOOLEAN }], [...p.fields.map((f) => f.name), '$left', '$right']);
      const tagged: PlanNode = { kind: 'union', inputs: [tag(left, true), tag(right, false)], fields: tag(left, true).fields };
      const count = (filter: number): AggregateCall => ({ name: 'count_star', args: [], argType: null, distinct: false, filter, type: BIGINT });
      const agg: PlanNode = {
        kind: 'aggregate',
        input: tagged,
        groupBy: fields.map((_, i) => i),
        aggregates: [count(width), count(width + 1)],
        fields: [...fields, { name: '$l', type: BIGINT }, { name: '$r', type: BIGINT }],
      };
      const zero: Expr = { kind: 'literal', value: 0, type: BIGINT };
      const rightTest: Expr = { kind: 'call', name: op.startsWith('intersect') ? '$gt' : '$eq', args: [col(width + 1, BIGINT), zero], type: BOOLEAN };
      const predicate: Expr = { kind: 'and', args: [{ kind: 'call', name: '$gt', args: [col(width, BIGINT), zero], type: BOOLEAN }, rightTest], type: BOOLEAN };
      const filtered: PlanNode = { kind: 'filter', input: agg, predicate, fields: agg.fields };
      return project(filtered, identityExprs(fields), fields.map((f) => f.name));
    }
    default:
      throw new EngineError('NOT_SUPPORTED', `${op.toUpperCase()} is not supported`, loc(node) ?? locateName(ctx.sql, [op.split(' ')[0]]));
  }
}

function analyzeSetOperation(ast: AstNode, ctx: AnalysisContext, outer: Scope | undefined, mode: Mode): SelectResult {
  const branches: AstNode[] = [];
  const ops: string[] = [];
  for (let node: AstNode | undefined = ast; node; node = node._next) {
    branches.push(node);
    if (node._next) ops.push(String(node.set_op ?? 'union').toLowerCase().replace(/\s+/gu, ' '));
  }
  // ORDER BY and LIMIT written after the last branch apply to the whole set operation.
  const last = branches[branches.length - 1];
  const orderby = last.orderby as AstNode[] | null;
  const limitAst = last.limit;
  const results = branches.map((b, i) =>
    analyzeSelect({ ...b, _next: undefined, set_op: undefined, with: i === 0 ? null : b.with, ...(i === branches.length - 1 ? { orderby: null, limit: { seperator: '', value: [] } } : {}) }, ctx, outer, 'query'),
  );
  const names = results[0].names;
  // INTERSECT binds tighter than UNION and EXCEPT.
  let plans = results.map((r) => r.plan);
  let pending = [...ops];
  for (let i = 0; i < pending.length; ) {
    if (pending[i].startsWith('intersect')) {
      plans.splice(i, 2, setOperation(pending[i], plans[i], plans[i + 1], ctx, ast));
      pending.splice(i, 1);
    } else i++;
  }
  let plan = plans[0];
  for (let i = 0; i < pending.length; i++) plan = setOperation(pending[i], plan, plans[i + 1], ctx, ast);
  plans = [];
  pending = [];
  plan = project(plan, identityExprs(plan.fields), names);
  if (orderby && orderby.length) {
    const keys: SortKey[] = orderby.map((o) => {
      const ascending = String(o.type ?? 'ASC').toUpperCase() !== 'DESC';
      const nullsFirst = String(o.nulls ?? '').toLowerCase().includes('first');
      const e = o.expr as AstNode;
      let index = -1;
      if (e.type === 'number' && typeof e.value === 'number') index = e.value - 1;
      else if (e.type === 'column_ref' && typeof e.column !== 'string') {
        const name = identifierValue(e.column).toLowerCase();
        index = names.findIndex((n) => n.toLowerCase() === name);
      }
      if (index < 0 || index >= names.length) throw new EngineError('NOT_SUPPORTED', 'ORDER BY on a set operation must name an output column or position', loc(e) ?? locateName(ctx.sql, ['order']));
      return { index, ascending, nullsFirst };
    });
    plan = { kind: 'sort', input: plan, keys, fields: plan.fields };
  }
  const { count, offset } = limitOf({ limit: limitAst }, ctx);
  if (count !== null || offset > 0) plan = { kind: 'limit', input: plan, count, offset, fields: plan.fields };
  if (mode !== 'query' && mode !== 'scalar' && mode !== 'in') throw new EngineError('NOT_SUPPORTED', 'Set operations in EXISTS subqueries are not supported', loc(ast));
  return { plan, names };
}

/** The GROUP BY clause as distinct expressions and the grouping sets over them (by position). */
function containsSubquery(e: Expr): boolean {
  if (e.kind === 'column' && e.index >= SUBQUERY_BASE) return true;
  return children(e).some(containsSubquery);
}

function groupingOf(groupAsts: readonly AstNode[], items: readonly { expr?: Expr }[], bc: BindContext): { exprs: Expr[]; sets: number[][] | null } {
  const exprs: Expr[] = [];
  const index = new Map<string, number>();
  const ctx = bc.ctx;
  const slot = (g: AstNode): number => {
    let e: Expr;
    if (g.type === 'number' && typeof g.value === 'number') {
      const n = g.value;
      if (!Number.isInteger(n) || n < 1 || n > items.length) throw new EngineError('INVALID_COLUMN_REFERENCE', `GROUP BY position ${n} is not in select list`, loc(g) ?? locateNumber(ctx.sql, n));
      e = items[n - 1].expr as Expr;
      if (containsAggregate(e)) throw new EngineError('EXPRESSION_NOT_AGGREGATE', 'GROUP BY clause cannot contain aggregations or window functions', loc(g));
      // The select item was bound for after the aggregation; a subquery in it would be computed there.
      if (containsSubquery(e)) throw new EngineError('NOT_SUPPORTED', 'Subqueries in GROUP BY are not supported', loc(g) ?? locateNumber(ctx.sql, n));
    } else e = bindExpr(g, { ...bc, aggregates: null, subqueries: null, windows: null });
    const key = exprKey(e);
    let i = index.get(key);
    if (i === undefined) {
      i = exprs.length;
      exprs.push(e);
      index.set(key, i);
    }
    return i;
  };
  const fnName = (g: AstNode): string => (g.type === 'function' ? String(g.name?.name?.[0]?.value ?? '').toLowerCase() : '');
  const argsOf = (g: AstNode): AstNode[] => g.args?.value ?? [];
  let sets: number[][] = [[]];
  let complex = false;
  for (const g of groupAsts) {
    const f = fnName(g);
    let element: number[][];
    if (f === 'rollup') {
      const cols = argsOf(g).map(slot);
      element = cols.map((_, i) => cols.slice(0, cols.length - i));
      element.push([]);
      complex = true;
    } else if (f === 'cube') {
      const cols = argsOf(g).map(slot);
      element = [];
      for (let mask = (1 << cols.length) - 1; mask >= 0; mask--) element.push(cols.filter((_, i) => mask & (1 << (cols.length - 1 - i))));
      complex = true;
    } else if (f === 'grouping_sets') {
      element = argsOf(g).map((s) => argsOf(s).map(slot));
      complex = true;
    } else element = [[slot(g)]];
    sets = sets.flatMap((a) => element.map((b) => [...new Set([...a, ...b])]));
  }
  return { exprs, sets: complex ? sets : null };
}

/** grouping(a, b, ...) as a CASE over the grouping-set number: bit set where the argument is not grouped. */
function resolveGrouping(e: Expr, sets: readonly (readonly number[])[] | null, gid: number, ctx: AnalysisContext): Expr {
  if (e.kind === 'call' && e.name === '$grouping') {
    // After the post-aggregation rewrite, GROUP BY expressions are columns 0..gid-1.
    const positions = e.args.map((a) => {
      if (a.kind !== 'column' || a.index >= gid) throw new EngineError('INVALID_ARGUMENTS', 'The arguments of grouping() must be GROUP BY expressions', locateName(ctx.sql, ['grouping']));
      return a.index;
    });
    const mask = (set: readonly number[]): number => positions.reduce((m, p) => m * 2 + (set.includes(p) ? 0 : 1), 0);
    if (!sets) return { kind: 'literal', value: 0, type: BIGINT };
    return {
      kind: 'case',
      whens: sets.map((set, id) => ({ when: { kind: 'call', name: '$eq', args: [col(gid, BIGINT), { kind: 'literal', value: id, type: BIGINT }], type: BOOLEAN } as Expr, then: { kind: 'literal', value: mask(set), type: BIGINT } as Expr })),
      otherwise: null,
      type: BIGINT,
    };
  }
  return mapChildren(e, (c) => resolveGrouping(c, sets, gid, ctx));
}

/**
 * A select item after aggregation evaluated over no rows: each aggregate at its value over no rows
 * (count, count_if and approx_distinct 0, the others NULL); undefined when that is NULL or it
 * reads anything else (a group key, a window, a subquery).
 */
function valueOverNoRows(value: Expr, calls: readonly { readonly name: string; readonly type: SqlType }[], groupCount: number): Expr | undefined {
  let readsOther = false;
  const substitute = (e: Expr): Expr => {
    if (e.kind !== 'column') return mapChildren(e, substitute);
    const call = calls[e.index - groupCount];
    if (e.index < groupCount || call === undefined) {
      readsOther = true;
      return e;
    }
    return { kind: 'literal', value: call.name === 'count' || call.name === 'count_star' ? 0 : null, type: e.type };
  };
  const result = substitute(value);
  if (readsOther) return undefined;
  let folded: LiteralValue;
  try {
    folded = evaluateConstant(result);
  } catch {
    // It fails (1 / count(*)): where an outer row has no match, as it would over no rows.
    return result;
  }
  return folded === null ? undefined : { kind: 'literal', value: folded, type: result.type };
}

function maxColumn(e: Expr): number {
  let m = -1;
  const walk = (x: Expr): void => {
    if (x.kind === 'column') m = Math.max(m, x.index);
    children(x).forEach(walk);
  };
  walk(e);
  return m;
}

function onlyOuter(e: Expr): boolean {
  let inner = false;
  const walk = (x: Expr): void => {
    if (x.kind === 'column') inner = true;
    children(x).forEach(walk);
  };
  walk(e);
  return hasOuterRef(e) && !inner;
}

function outerToColumns(e: Expr): Expr {
  if (e.kind === 'outerRef') return { kind: 'column', index: e.index, type: e.type };
  return mapChildren(e, outerToColumns);
}

/** A correlated condition over (outer fields ++ inner fields). */
function remapOuterResidual(e: Expr, outer: Scope): Expr {
  const width = outer.fields.length;
  const walk = (x: Expr): Expr => {
    if (x.kind === 'outerRef') return { kind: 'column', index: x.index, type: x.type };
    if (x.kind === 'column') return { kind: 'column', index: width + x.index, type: x.type };
    return mapChildren(x, walk);
  };
  return walk(e);
}

/**
 * A query whose rows exist exactly when the given EXISTS subquery's do, without what the
 * per-outer-row decorrelation cannot plan: a global aggregation (one row, always), GROUP BY
 * without HAVING (a group exists iff a row does), LIMIT n > 0. Undefined when no such query is
 * this simple (HAVING, OFFSET, LIMIT 0, grouping sets).
 */
function existenceEquivalent(ast: AstNode, limit: { count: number | null; offset: number }): AstNode | undefined {
  if (ast.having || limit.offset > 0 || limit.count === 0) return undefined;
  const groupBy: AstNode[] = ast.groupby?.columns ?? [];
  if (groupBy.some((g) => g.type === 'function' && /^(grouping_sets|rollup|cube)$/iu.test(String(g.name?.name?.[0]?.value ?? g.name ?? '')))) return undefined;
  const one = [{ type: 'expr', expr: { type: 'number', value: 1 }, as: null }];
  const plain = { ...ast, columns: one, groupby: null, orderby: null, limit: { seperator: '', value: [] } };
  if (groupBy.length > 0) return plain;
  if (hasAggregateAst(ast.columns) || hasAggregateAst(ast.orderby)) return { ...plain, from: null, where: null };
  return plain;
}

function limitOf(ast: AstNode, ctx: AnalysisContext): { count: number | null; offset: number } {
  const values: AstNode[] = ast.limit?.value ?? [];
  if (values.length === 0) return { count: null, offset: 0 };
  const read = (v: AstNode): number | null => {
    if (v.type === 'origin' && String(v.value).toLowerCase() === 'all') return null;
    if (v.type === 'number' && typeof v.value === 'number' && Number.isInteger(v.value) && v.value >= 0) return v.value;
    // A subquery or an expression has no `value`: name what it is instead of 'undefined'.
    const shown = v.value !== undefined ? String(v.value) : v.ast || v.type === 'select' ? '(' : String(v.type ?? '?');
    throw new EngineError('SYNTAX_ERROR', `mismatched input '${shown}'. Expecting: <integer>, 'ALL'`, loc(v) ?? locateName(ctx.sql, ['limit']));
  };
  if (ast.limit.seperator === 'offset') {
    // `OFFSET n` alone arrives as a single value.
    if (values.length === 1) return { count: null, offset: read(values[0]) ?? 0 };
    return { count: read(values[0]), offset: read(values[1]) ?? 0 };
  }
  if (ast.limit.seperator === ',') return { count: read(values[1]), offset: read(values[0]) ?? 0 };
  return { count: read(values[0]), offset: 0 };
}

function implicitName(e: AstNode, position: number): string {
  if (e.type === 'column_ref' && typeof e.column !== 'string') return identifierValue(e.column).toLowerCase();
  return `_col${position}`;
}

function locateNumber(sql: string, n: number): { lineNumber: number; columnNumber: number } | undefined {
  const m = new RegExp(String.raw`\b${n}\b`, 'u').exec(sql);
  if (!m) return undefined;
  const before = sql.slice(0, m.index).split('\n');
  return { lineNumber: before.length, columnNumber: before[before.length - 1].length + 1 };
}

interface OrderKey {
  readonly ast: AstNode;
  readonly output?: number;
  readonly expr?: Expr;
  readonly ascending: boolean;
  readonly nullsFirst: boolean;
}

function bindOrderKey(o: AstNode, items: { name: string; alias: boolean }[], bc: BindContext): OrderKey {
  const { scope, ctx } = bc;
  const ascending = String(o.type ?? 'ASC').toUpperCase() !== 'DESC';
  const nulls = String(o.nulls ?? '').toLowerCase();
  // Trino sorts NULLs last by default, in both directions.
  const nullsFirst = nulls.includes('first');
  const e = o.expr as AstNode;
  if (e.type === 'number' && typeof e.value === 'number') {
    if (!Number.isInteger(e.value) || e.value < 1 || e.value > items.length) {
      throw new EngineError('INVALID_COLUMN_REFERENCE', `ORDER BY position ${e.value} is not in select list`, loc(e) ?? locateNumber(ctx.sql, e.value));
    }
    return { ast: e, output: e.value - 1, ascending, nullsFirst };
  }
  if (e.type === 'column_ref' && !e.table && typeof e.column !== 'string') {
    const name = identifierValue(e.column).toLowerCase();
    const matches = items.map((it, i) => ({ it, i })).filter(({ it }) => it.name.toLowerCase() === name);
    const aliased = matches.filter(({ it }) => it.alias);
    if (aliased.length > 1) throw new EngineError('AMBIGUOUS_NAME', `'${name}' in ORDER BY is ambiguous`, locateName(ctx.sql, [name]));
    if (aliased.length === 1) return { ast: e, output: aliased[0].i, ascending, nullsFirst };
    if (matches.length >= 1 && !scope.resolve([name], ctx.sql)) return { ast: e, output: matches[0].i, ascending, nullsFirst };
  }
  return { ast: e, expr: bindExpr(e, bc), ascending, nullsFirst };
}

function containsAggregate(e: Expr): boolean {
  return (e.kind === 'column' && e.index >= AGGREGATE_BASE && e.index < SUBQUERY_BASE) || children(e).some(containsAggregate);
}

function rewritePostAggregate(e: Expr, groupKeys: Map<string, number>, groupCount: number, node: AstNode | null, ctx: AnalysisContext): Expr {
  const g = groupKeys.get(exprKey(e));
  if (g !== undefined) return { kind: 'column', index: g, type: e.type };
  if (e.kind === 'column') {
    if (e.index >= SUBQUERY_BASE || (e.index >= WINDOW_BASE && e.index < AGGREGATE_BASE)) return e;
    if (e.index >= AGGREGATE_BASE) return { kind: 'column', index: groupCount + (e.index - AGGREGATE_BASE), type: e.type };
    const name = findColumnName(node);
    throw new EngineError(
      'EXPRESSION_NOT_AGGREGATE',
      `'${name ?? 'expression'}' must be an aggregate expression or appear in GROUP BY clause`,
      name && node ? (locateName(ctx.sql, name.split('.')) ?? loc(node)) : loc(node),
    );
  }
  return mapChildren(e, (c) => rewritePostAggregate(c, groupKeys, groupCount, node, ctx));
}

function findColumnName(node: AstNode | null): string | undefined {
  if (!node || typeof node !== 'object') return undefined;
  if (node.type === 'column_ref' && typeof node.column !== 'string') return columnParts(node).join('.');
  if (node.type === 'aggr_func' || node.ast) return undefined;
  for (const v of Object.values(node)) {
    if (Array.isArray(v)) {
      for (const x of v) {
        const r = findColumnName(x as AstNode);
        if (r) return r;
      }
    } else if (v && typeof v === 'object') {
      const r = findColumnName(v as AstNode);
      if (r) return r;
    }
  }
  return undefined;
}

export { BOOLEAN };
