// Queries: WITH, set operations (a flat `_next` chain; the analyzer gives INTERSECT precedence),
// ORDER BY / OFFSET / LIMIT / FETCH, SELECT … FROM … WHERE … GROUP BY … HAVING, VALUES and TABLE.
// A parenthesized query that cannot join a chain as it is (it has its own ORDER BY, LIMIT, WITH
// or set operation) becomes a derived table: `(q)` is `SELECT * FROM (q)`.

import { EngineError } from '../../util/engine-error.js';
import { locationAt } from '../lexical.js';
import type { Cursor } from './cursor.js';
import { expression, numberLiteral, sortItems } from './expressions.js';
import type { ColumnRef, DerivedRef, Expression, ExprList, FromItem, FunctionCall, Limit, OrderItem, SelectItem, SelectNode, Subquery, TableRef, WithItem } from './nodes.js';

/** Non-reserved words that still end an expression rather than alias it. */
const NOT_ALIAS = new Set(['LIMIT', 'OFFSET', 'FETCH', 'WINDOW', 'TABLESAMPLE', 'MATCH_RECOGNIZE']);
const SET_OPERATORS = ['UNION', 'EXCEPT', 'INTERSECT'];

/** Whether the token `ahead` starts a query (SELECT, WITH, VALUES or TABLE). */
export function isQueryStart(c: Cursor, ahead: number): boolean {
  return ['SELECT', 'WITH', 'VALUES', 'TABLE'].some((w) => c.isWord(w, ahead));
}

/** `(` query `)` as an expression or FROM item. */
export function subquery(c: Cursor): Subquery {
  const start = c.offset;
  c.expectSymbol('(');
  const ast = query(c);
  c.expectSymbol(')', "'UNION'", "'EXCEPT'", "'INTERSECT'", "'ORDER'", "'LIMIT'", "'OFFSET'", "'FETCH'");
  return { ast, parentheses: true, loc: c.loc(start) };
}

/** A whole query: [WITH …] body [ORDER BY …] [OFFSET …] [LIMIT … | FETCH …]. */
export function query(c: Cursor): SelectNode {
  return c.nested(() => {
    const withItems = c.isWord('WITH') ? withClause(c) : null;
    const body = queryNoWith(c, null);
    if (!withItems) return body;
    const node = body.with ? derived(body) : body;
    node.with = withItems;
    return node;
  });
}

/** The rest of a query whose first parenthesized operand is already parsed. */
export function continueQuery(c: Cursor, first: SelectNode): SelectNode {
  return queryNoWith(c, first);
}

function withClause(c: Cursor): WithItem[] {
  c.expectWord('WITH');
  const recursive = c.acceptWord('RECURSIVE');
  const items: WithItem[] = [];
  do {
    const name = c.identifier();
    let columns: ColumnRef[] | null = null;
    if (c.acceptSymbol('(')) {
      columns = [];
      do columns.push({ type: 'column_ref', table: null, column: { expr: { type: 'default', value: c.identifier().value } } });
      while (c.acceptSymbol(','));
      c.expectSymbol(')', "','");
    }
    c.expectWord('AS');
    c.expectSymbol('(');
    const stmt = query(c);
    c.expectSymbol(')');
    const item: WithItem = { name: { type: 'default', value: name.value }, stmt, columns };
    if (recursive) item.recursive = true;
    items.push(item);
  } while (c.acceptSymbol(','));
  return items;
}

const noLimit = (): Limit => ({ seperator: '', value: [] });

function emptySelect(): SelectNode {
  return { with: null, type: 'select', options: null, distinct: { type: null }, columns: [], into: { position: null }, from: null, where: null, groupby: null, having: null, orderby: null, limit: noLimit(), window: null };
}

const star = (): SelectItem => ({ expr: { type: 'column_ref', table: null, column: '*' }, as: null });

/** `SELECT * FROM (q)`: q as a derived table, so it keeps its own ORDER BY, LIMIT and set operation. */
function derived(q: SelectNode): SelectNode {
  return { ...emptySelect(), columns: [star()], from: [{ expr: { ast: q, parentheses: true }, as: null }] };
}

/** Can join a set operation chain as it is. */
function simple(q: SelectNode): boolean {
  return !q._next && !q.with && !q.orderby && q.limit.value.length === 0;
}

function queryNoWith(c: Cursor, first: SelectNode | null): SelectNode {
  const operands = [first ?? queryPrimary(c)];
  const ops: string[] = [];
  while (SET_OPERATORS.some((w) => c.isWord(w))) {
    let op = c.next().text.toLowerCase();
    if (c.acceptWord('ALL')) op += ' all';
    else c.acceptWord('DISTINCT');
    ops.push(op);
    operands.push(queryPrimary(c));
  }
  let orderby: OrderItem[] | null = null;
  if (c.acceptWord('ORDER')) {
    c.expectWord('BY');
    orderby = sortItems(c);
  }
  const limit = limitClause(c);
  let node: SelectNode;
  let last: SelectNode;
  if (ops.length > 0) {
    const chain = operands.map((q) => (simple(q) ? q : derived(q)));
    for (let i = 0; i < ops.length; i++) {
      chain[i]._next = chain[i + 1];
      chain[i].set_op = ops[i];
    }
    node = chain[0];
    last = chain[chain.length - 1];
  } else {
    node = operands[0];
    last = node;
    while (last._next) last = last._next;
  }
  if (orderby || limit.value.length > 0) {
    if (last.orderby || last.limit.value.length > 0) {
      node = derived(node);
      last = node;
    }
    last.orderby = orderby;
    last.limit = limit;
  }
  return node;
}

/** [OFFSET n [ROW | ROWS]] [LIMIT n | ALL | FETCH FIRST | NEXT [n] ROW | ROWS ONLY], either order of OFFSET and LIMIT. */
function limitClause(c: Cursor): Limit {
  let offset: Limit['value'][number] | null = null;
  let count: Limit['value'][number] | null = null;
  const readOffset = (): void => {
    c.expectWord('OFFSET');
    offset = integer(c, false);
    if (!c.acceptWord('ROWS')) c.acceptWord('ROW');
  };
  if (c.isWord('OFFSET')) readOffset();
  if (c.acceptWord('LIMIT')) count = integer(c, true);
  else if (c.isWord('FETCH')) {
    const fetch = c.next();
    if (!c.acceptWord('FIRST')) c.expectWord('NEXT', "'FIRST'");
    count = c.token.kind === 'integer' ? integer(c, false) : { type: 'number', value: 1 };
    if (!c.acceptWord('ROWS')) c.expectWord('ROW', "'ROWS'");
    if (c.isWord('WITH')) throw new EngineError('NOT_SUPPORTED', 'FETCH FIRST ... WITH TIES is not supported yet', locationAt(c.sql, fetch.start));
    c.expectWord('ONLY', "'WITH'");
  }
  if (offset === null && c.isWord('OFFSET')) readOffset();
  if (offset !== null) return { seperator: 'offset', value: count === null ? [offset] : [count, offset] };
  return count === null ? noLimit() : { seperator: '', value: [count] };
}

function integer(c: Cursor, all: boolean): Limit['value'][number] {
  if (all && c.acceptWord('ALL')) return { type: 'origin', value: 'all' };
  const t = c.token;
  if (t.kind !== 'integer') throw c.fail(all ? ['<integer>', "'ALL'"] : ['<integer>']);
  c.next();
  return numberLiteral(t) as Limit['value'][number];
}

function queryPrimary(c: Cursor): SelectNode {
  if (c.isWord('SELECT')) return querySpecification(c);
  if (c.isWord('VALUES')) return valuesQuery(c);
  if (c.acceptWord('TABLE')) {
    const table = tableName(c);
    return { ...emptySelect(), columns: [star()], from: [table] };
  }
  if (c.isSymbol('(')) {
    c.next();
    const q = query(c);
    c.expectSymbol(')', "'UNION'", "'EXCEPT'", "'INTERSECT'", "'ORDER'", "'LIMIT'", "'OFFSET'", "'FETCH'");
    return q;
  }
  throw c.fail(["'('", "'SELECT'", "'TABLE'", "'VALUES'", "'WITH'"]);
}

/** VALUES rows as `SELECT * FROM (VALUES …) AS "$values"`. */
function valuesQuery(c: Cursor): SelectNode {
  const rows = valuesRows(c);
  return { ...emptySelect(), columns: [star()], from: [{ expr: { type: 'values', values: rows, parentheses: true }, as: '$values' }] };
}

function valuesRows(c: Cursor): ExprList[] {
  c.expectWord('VALUES');
  const rows: ExprList[] = [];
  do {
    const e = expression(c);
    rows.push(e.type === 'expr_list' ? { type: 'expr_list', value: e.value } : { type: 'expr_list', value: [e] });
  } while (c.acceptSymbol(','));
  return rows;
}

function querySpecification(c: Cursor): SelectNode {
  const node = emptySelect();
  c.expectWord('SELECT');
  if (c.isWord('DISTINCT') && c.isWord('ON', 1)) throw new EngineError('NOT_SUPPORTED', 'DISTINCT ON is not supported', locationAt(c.sql, c.offset));
  if (c.acceptWord('DISTINCT')) node.distinct = { type: 'DISTINCT' };
  else c.acceptWord('ALL');
  do node.columns.push(selectItem(c));
  while (c.acceptSymbol(','));
  if (c.acceptWord('FROM')) node.from = fromClause(c);
  if (c.acceptWord('WHERE')) node.where = expression(c);
  if (c.isWord('GROUP')) {
    c.next();
    c.expectWord('BY');
    if (c.isWord('DISTINCT')) throw c.notSupported('GROUP BY DISTINCT');
    c.acceptWord('ALL');
    const columns: Expression[] = [];
    do columns.push(groupingElement(c));
    while (c.acceptSymbol(','));
    node.groupby = { columns };
  }
  if (c.acceptWord('HAVING')) node.having = expression(c);
  if (c.isWord('WINDOW')) throw new EngineError('NOT_SUPPORTED', 'Named windows (WINDOW clause) are not supported yet', locationAt(c.sql, c.offset));
  return node;
}

function selectItem(c: Cursor): SelectItem {
  if (c.acceptSymbol('*')) return star();
  const expr = expression(c);
  if (expr.type === 'column_ref' && expr.column === '*') return { expr, as: null };
  return { type: 'expr', expr, as: alias(c) };
}

/** [AS] name, or null. */
function alias(c: Cursor): string | null {
  if (c.acceptWord('AS')) return c.identifier().value;
  if (c.isIdentifier() && !(c.token.kind === 'word' && NOT_ALIAS.has(c.token.keyword))) return c.next().value;
  return null;
}

function groupingElement(c: Cursor): Expression {
  const start = c.offset;
  const call = (name: string, args: Expression[]): FunctionCall => ({ type: 'function', name: { name: [{ type: 'default', value: name }] }, args: { type: 'expr_list', value: args }, loc: c.loc(start) });
  const list = (): Expression[] => {
    c.expectSymbol('(');
    const out: Expression[] = [];
    if (!c.isSymbol(')')) {
      do out.push(expression(c));
      while (c.acceptSymbol(','));
    }
    c.expectSymbol(')', "','");
    return out;
  };
  if ((c.isWord('ROLLUP') || c.isWord('CUBE')) && c.isSymbol('(', 1)) {
    const name = c.next().text.toLowerCase();
    return call(name, list());
  }
  if (c.isWord('GROUPING') && c.isWord('SETS', 1)) {
    c.next();
    c.next();
    c.expectSymbol('(');
    const sets: Expression[] = [];
    do {
      const setStart = c.offset;
      const items = c.isSymbol('(') ? list() : [expression(c)];
      sets.push({ type: 'function', name: { name: [{ type: 'default', value: '__gs' }] }, args: { type: 'expr_list', value: items }, loc: c.loc(setStart) });
    } while (c.acceptSymbol(','));
    c.expectSymbol(')', "','");
    return call('grouping_sets', sets);
  }
  if (c.isSymbol('(') && c.isSymbol(')', 1)) {
    c.next();
    c.next();
    return call('grouping_sets', [call('__gs', [])]);
  }
  return expression(c);
}

// ---- FROM

function fromClause(c: Cursor): FromItem[] {
  const items: FromItem[] = [];
  let afterComma = false;
  do {
    items.push(relationPrimary(c));
    for (;;) {
      const at = c.offset;
      const join = joinKeyword(c);
      if (!join) break;
      // `a, b RIGHT JOIN c` joins b and c first; the analyzer reads the list left to right, which
      // is the same for inner and left joins but not for right and full ones.
      if (afterComma && /\b(RIGHT|FULL)\b/u.test(join)) throw new EngineError('NOT_SUPPORTED', `${join} after a comma in FROM is not supported yet`, locationAt(c.sql, at));
      const right = relationPrimary(c);
      right.join = join;
      if (join !== 'CROSS JOIN') {
        if (c.acceptWord('ON')) right.on = expression(c);
        else if (c.acceptWord('USING')) {
          c.expectSymbol('(');
          right.using = [];
          do right.using.push({ type: 'default', value: c.identifier().value });
          while (c.acceptSymbol(','));
          c.expectSymbol(')', "','");
        } else right.on = null;
      }
      items.push(right);
    }
    afterComma = true;
  } while (c.acceptSymbol(','));
  return items;
}

/** The join keywords before a relation, as the analyzer reads them ('INNER JOIN', 'LEFT JOIN', 'CROSS JOIN', 'NATURAL …'); null when none follow. */
function joinKeyword(c: Cursor): string | null {
  if (c.acceptWord('CROSS')) {
    c.expectWord('JOIN');
    return 'CROSS JOIN';
  }
  const natural = c.acceptWord('NATURAL');
  let kind = 'INNER';
  if (c.acceptWord('INNER')) kind = 'INNER';
  else if (c.isWord('LEFT') || c.isWord('RIGHT') || c.isWord('FULL')) {
    kind = c.next().text.toUpperCase();
    c.acceptWord('OUTER');
  } else if (!c.isWord('JOIN')) {
    if (natural) throw c.fail(["'JOIN'", "'INNER'", "'LEFT'", "'RIGHT'", "'FULL'"]);
    return null;
  }
  c.expectWord('JOIN');
  return `${natural ? 'NATURAL ' : ''}${kind} JOIN`;
}

function relationPrimary(c: Cursor): FromItem {
  const start = c.offset;
  let item: FromItem;
  if (c.isSymbol('(')) {
    if (c.isWord('VALUES', 1)) {
      c.next();
      const rows = valuesRows(c);
      if (c.acceptSymbol(')')) item = { expr: { type: 'values', values: rows, parentheses: true }, as: null };
      else {
        const q = continueQuery(c, { ...emptySelect(), columns: [star()], from: [{ expr: { type: 'values', values: rows, parentheses: true }, as: '$values' }] });
        c.expectSymbol(')');
        item = { expr: { ast: q, parentheses: true }, as: null };
      }
    } else if (isQueryStart(c, 1) || c.isSymbol('(', 1)) {
      item = { expr: subquery(c), as: null };
    } else throw c.notSupported('A parenthesized join');
  } else if (c.isWord('TABLE') && c.isSymbol('(', 1)) {
    throw c.notSupported('Table functions (TABLE(…))');
  } else if (c.isWord('UNNEST') || c.isWord('LATERAL')) {
    throw c.notSupported(c.token.text.toUpperCase());
  } else item = tableName(c);
  if (c.isWord('TABLESAMPLE') || c.isWord('MATCH_RECOGNIZE')) throw c.notSupported(c.token.text.toUpperCase());
  if (c.isWord('FOR') && (c.isWord('VERSION', 1) || c.isWord('TIMESTAMP', 1))) throw c.notSupported(`FOR ${c.peek().text.toUpperCase()} AS OF`);
  const name = alias(c);
  if (name !== null && c.acceptSymbol('(')) {
    const columns: string[] = [];
    do columns.push(c.identifier().value);
    while (c.acceptSymbol(','));
    c.expectSymbol(')', "','");
    item.as = `${name}(${columns.join(', ')})`;
  } else item.as = name;
  if (!('table' in item)) (item as DerivedRef).loc = c.loc(start);
  return item;
}

function tableName(c: Cursor): TableRef {
  const start = c.offset;
  const parts = [c.identifier().value];
  while (c.acceptSymbol('.')) parts.push(c.identifier().value);
  if (parts.length > 3) throw new EngineError('SYNTAX_ERROR', `Too many dots in table name: ${parts.join('.')}`, locationAt(c.sql, start));
  if (parts.length === 3) return { db: parts[0], schema: parts[1], table: parts[2], as: null };
  return { db: parts.length === 2 ? parts[0] : null, table: parts[parts.length - 1], as: null };
}
