// Expressions: recursive descent by precedence, lowest first — OR, AND, NOT, predicates
// (comparison, [NOT] BETWEEN / IN / LIKE, IS …), ||, + -, * / %, unary sign, then primaries (literals,
// names, calls, CASE, CAST, subqueries, parentheses). Each token is read once: no backtracking.

import { AGGREGATE_NAMES } from '../aggregate-names.js';
import { RESERVED, type Cursor } from './cursor.js';
import type { Token } from './lexer.js';
import type {
  AggregateCall,
  BinaryExpr,
  CaseExpr,
  CastExpr,
  CastTarget,
  ColumnRef,
  Expression,
  ExprList,
  FunctionCall,
  Identifier,
  OrderItem,
  Origin,
  Over,
  StringLiteral,
  Subquery,
  WindowFunctionCall,
  WindowSpec,
} from './nodes.js';
import { continueQuery, isQueryStart, query, subquery } from './queries.js';

/** The aggregates the analyzer reads as `aggr_func` nodes; the others are calls it recognises by name. */
const AGGR_FUNC_NAMES = new Set(['count', 'sum', 'avg', 'min', 'max']);
const WINDOW_FUNCTION_NAMES = new Set(['row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile', 'lag', 'lead', 'first_value', 'last_value', 'nth_value']);
const COMPARISONS = new Set(['=', '<>', '!=', '<', '<=', '>', '>=']);
const EXPRESSION = '<expression>';

export function expression(c: Cursor): Expression {
  return c.nested(() => or(c));
}

function binary(c: Cursor, operator: string, left: Expression, right: Expression, start: number): BinaryExpr {
  return { type: 'binary_expr', operator, left, right, loc: c.loc(start) };
}

function or(c: Cursor): Expression {
  const start = c.offset;
  let left = and(c);
  while (c.acceptWord('OR')) left = binary(c, 'OR', left, and(c), start);
  return left;
}

function and(c: Cursor): Expression {
  const start = c.offset;
  let left = not(c);
  while (c.acceptWord('AND')) left = binary(c, 'AND', left, not(c), start);
  return left;
}

function not(c: Cursor): Expression {
  if (c.isWord('NOT')) {
    const start = c.next().start;
    const operand = c.nested(() => not(c));
    // NOT EXISTS (…) is one node: the analyzer plans it as an anti join.
    if (operand.type === 'function' && !operand.parentheses && operand.name.name.length === 1 && operand.name.name[0].value === 'exists' && /^exists$/iu.test(c.sql.substr(operand.loc?.start.offset ?? 0, 6))) {
      return { type: 'unary_expr', operator: 'NOT EXISTS', expr: operand.args.value[0] };
    }
    return { type: 'unary_expr', operator: 'NOT', expr: operand, loc: c.loc(start) };
  }
  return predicate(c);
}

function predicate(c: Cursor): Expression {
  const start = c.offset;
  let left = valueExpression(c);
  for (;;) {
    const t = c.token;
    if (t.kind === 'symbol' && COMPARISONS.has(t.text)) {
      c.next();
      left = comparison(c, t.text, left, start);
    } else if (c.isWord('IS')) {
      c.next();
      const negated = c.acceptWord('NOT');
      if (c.acceptWord('DISTINCT')) {
        c.expectWord('FROM');
        left = binary(c, negated ? 'IS NOT DISTINCT FROM' : 'IS DISTINCT FROM', left, valueExpression(c), start);
      } else if (c.isWord('NULL') || c.isWord('TRUE') || c.isWord('FALSE')) {
        left = binary(c, negated ? 'IS NOT' : 'IS', left, primary(c), start);
      } else throw c.fail(["'NULL'", "'DISTINCT'", "'TRUE'", "'FALSE'"]);
    } else if (c.isWord('BETWEEN') || (c.isWord('NOT') && c.isWord('BETWEEN', 1))) {
      const negated = c.acceptWord('NOT');
      c.next();
      const low = valueExpression(c);
      c.expectWord('AND');
      const high = valueExpression(c);
      left = binary(c, negated ? 'NOT BETWEEN' : 'BETWEEN', left, { type: 'expr_list', value: [low, high] }, start);
    } else if (c.isWord('IN') || (c.isWord('NOT') && c.isWord('IN', 1))) {
      const negated = c.acceptWord('NOT');
      c.next();
      left = binary(c, negated ? 'NOT IN' : 'IN', left, inList(c), start);
    } else if (c.isWord('LIKE') || (c.isWord('NOT') && c.isWord('LIKE', 1))) {
      const negated = c.acceptWord('NOT');
      c.next();
      const pattern = valueExpression(c);
      if (c.acceptWord('ESCAPE')) {
        const escape = valueExpression(c);
        (pattern as StringLiteral).escape = { type: 'ESCAPE', value: escape };
      }
      left = binary(c, negated ? 'NOT LIKE' : 'LIKE', left, pattern, start);
    } else return left;
  }
}

/** The right side of a comparison: a value, or ANY / SOME / ALL over a subquery. */
function comparison(c: Cursor, operator: string, left: Expression, start: number): Expression {
  const quantifier = ['ANY', 'SOME', 'ALL'].find((q) => c.isWord(q) && c.isSymbol('(', 1));
  if (quantifier && isQueryStart(c, 2)) {
    const word = c.next();
    const sub = subquery(c);
    // `= ANY` is IN and `<> ALL` is NOT IN; other quantified comparisons reach the binder, which refuses them.
    if (operator === '=' && quantifier !== 'ALL') return binary(c, 'IN', left, { type: 'expr_list', value: [sub] }, start);
    if ((operator === '<>' || operator === '!=') && quantifier === 'ALL') return binary(c, 'NOT IN', left, { type: 'expr_list', value: [sub] }, start);
    const call: FunctionCall = { type: 'function', name: { name: [{ type: 'default', value: word.text.toLowerCase() }] }, args: { type: 'expr_list', value: [sub] }, loc: c.loc(word.start) };
    return binary(c, operator, left, call, start);
  }
  return binary(c, operator, left, valueExpression(c), start);
}

function inList(c: Cursor): ExprList {
  c.expectSymbol('(');
  if (isQueryStart(c, 0)) {
    const ast = query(c);
    c.expectSymbol(')');
    return { type: 'expr_list', value: [{ ast }] };
  }
  const value = [expression(c)];
  while (c.acceptSymbol(',')) value.push(expression(c));
  c.expectSymbol(')', "','");
  return { type: 'expr_list', value };
}

function valueExpression(c: Cursor): Expression {
  return c.nested(() => concatenation(c));
}

function concatenation(c: Cursor): Expression {
  const start = c.offset;
  let left = additive(c);
  while (c.acceptSymbol('||')) left = binary(c, '||', left, additive(c), start);
  return left;
}

function additive(c: Cursor): Expression {
  const start = c.offset;
  let left = multiplicative(c);
  while (c.isSymbol('+') || c.isSymbol('-')) {
    const op = c.next().text;
    left = binary(c, op, left, multiplicative(c), start);
  }
  return left;
}

function multiplicative(c: Cursor): Expression {
  const start = c.offset;
  let left = unary(c);
  while (c.isSymbol('*') || c.isSymbol('/') || c.isSymbol('%')) {
    const op = c.next().text;
    left = binary(c, op, left, unary(c), start);
  }
  return left;
}

function unary(c: Cursor): Expression {
  if (c.isSymbol('-') || c.isSymbol('+')) {
    const op = c.next().text as '-' | '+';
    const t = c.token;
    // A signed number is one literal (so -2147483648 is an integer).
    if (op === '-' && (t.kind === 'integer' || t.kind === 'decimal' || t.kind === 'double')) return postfix(c, numberLiteral(c.next(), true));
    const operand = c.nested(() => unary(c));
    return { type: 'unary_expr', operator: op, expr: operand };
  }
  return postfix(c, primary(c));
}

/** What may follow a primary: Trino's subscripts, field references and AT TIME ZONE, none of which this engine runs. */
function postfix(c: Cursor, e: Expression): Expression {
  if (c.isSymbol('[')) throw c.notSupported('Subscript expression');
  if (c.isWord('AT') && c.isWord('TIME', 1)) throw c.notSupported('AT TIME ZONE');
  if (c.isSymbol('->')) throw c.notSupported('Lambda expression');
  if (c.isSymbol('.')) throw c.notSupported('Field reference');
  if (c.isSymbol('::')) throw c.fail(["'AND'", "'OR'", "','", "')'"]);
  return e;
}

export function numberLiteral(t: Token, negative = false): Expression {
  const text = (negative ? '-' : '') + t.text;
  if (t.kind === 'double') return { type: 'bigint', value: text };
  if (t.kind === 'decimal') {
    const [whole, frac] = text.replace(/^-/u, '').split('.');
    return { type: 'number', value: `${negative ? '-' : ''}${whole === '' ? '0' : whole}.${frac}` };
  }
  const n = Number(text);
  return Number.isSafeInteger(n) ? { type: 'number', value: n } : { type: 'bigint', value: text.replace(/^(-?)0+(?=\d)/u, '$1') };
}

function primary(c: Cursor): Expression {
  const t = c.token;
  switch (t.kind) {
    case 'integer':
    case 'decimal':
    case 'double':
      c.next();
      return numberLiteral(t);
    case 'string':
      c.next();
      return { type: 'single_quote_string', value: t.value };
    case 'unicodeString':
      c.next();
      return { type: 'single_quote_string', value: unicodeString(c, t) };
    case 'binary':
      throw c.notSupported('VARBINARY literal');
    case 'quoted':
      return nameOrCall(c);
    case 'symbol':
      if (t.text === '(') return parenthesized(c);
      if (t.text === '?') throw c.notSupported('A parameter (?) outside EXECUTE ... USING');
      throw c.fail([EXPRESSION]);
    case 'word':
      return wordPrimary(c, t);
    default:
      throw c.fail([EXPRESSION]);
  }
}

/** `U&'…'` with `\XXXX` / `\+XXXXXX` escapes (or another escape character given by UESCAPE). */
function unicodeString(c: Cursor, t: Token): string {
  let escape = '\\';
  if (c.acceptWord('UESCAPE')) {
    const e = c.token;
    if (e.kind !== 'string' || [...e.value].length !== 1) throw c.fail(['<string>']);
    escape = c.next().value;
  }
  let out = '';
  const s = t.value;
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== escape) {
      out += s[i];
      continue;
    }
    if (s[i + 1] === escape) {
      out += escape;
      i++;
      continue;
    }
    const long = s[i + 1] === '+';
    const digits = s.slice(i + (long ? 2 : 1), i + (long ? 8 : 5));
    if (!/^[0-9A-Fa-f]+$/u.test(digits) || digits.length !== (long ? 6 : 4)) throw c.fail(['<unicode escape>']);
    out += String.fromCodePoint(parseInt(digits, 16));
    i += long ? 7 : 4;
  }
  return out;
}

/** `(` … `)`: a subquery, a row, or an expression in parentheses. */
function parenthesized(c: Cursor): Expression {
  const open = c.token;
  if (isQueryStart(c, 1)) return subquery(c);
  c.next();
  const first = expression(c);
  if (c.isSymbol(',')) {
    const value = [first];
    while (c.acceptSymbol(',')) value.push(expression(c));
    c.expectSymbol(')', "','");
    return { type: 'expr_list', value, parentheses: true };
  }
  // `((SELECT …) UNION (SELECT …))`: a parenthesized subquery turns out to start a query.
  if (isSubquery(first) && first.parentheses && isQueryContinuation(c)) {
    const ast = continueQuery(c, first.ast);
    c.expectSymbol(')');
    return { ast, parentheses: true, loc: c.loc(open.start) };
  }
  c.expectSymbol(')', "'AND'", "'OR'", "','");
  return { ...first, parentheses: true };
}

function isSubquery(e: Expression): e is Subquery {
  return 'ast' in e && e.ast !== undefined;
}

function isQueryContinuation(c: Cursor): boolean {
  return ['UNION', 'EXCEPT', 'INTERSECT', 'ORDER', 'LIMIT', 'OFFSET', 'FETCH'].some((w) => c.isWord(w));
}

const TYPED_LITERALS: Record<string, 'date' | 'timestamp' | 'time'> = { DATE: 'date', TIMESTAMP: 'timestamp', TIME: 'time' };

function wordPrimary(c: Cursor, t: Token): Expression {
  const word = t.keyword;
  const after = c.peek();
  switch (word) {
    case 'NULL':
      c.next();
      return { type: 'null', value: null };
    case 'TRUE':
    case 'FALSE':
      c.next();
      return { type: 'bool', value: word === 'TRUE' };
    case 'CASE':
      return caseExpression(c);
    case 'CAST':
    case 'TRY_CAST':
      if (after.kind === 'symbol' && after.text === '(') return cast(c, word === 'TRY_CAST');
      break;
    case 'EXTRACT':
      return extract(c);
    case 'EXISTS': {
      c.next();
      if (!c.isSymbol('(') || !isQueryStart(c, 1)) throw c.fail(["'('"]);
      const sub = subquery(c);
      return { type: 'function', name: { name: [{ type: 'default', value: 'exists' }] }, args: { type: 'expr_list', value: [sub] }, loc: c.loc(t.start) };
    }
    case 'INTERVAL':
      if (after.kind === 'string' || (after.kind === 'symbol' && (after.text === '-' || after.text === '+'))) return interval(c);
      break;
    case 'CURRENT_DATE':
    case 'CURRENT_TIMESTAMP':
    case 'LOCALTIMESTAMP':
    case 'CURRENT_TIME':
    case 'LOCALTIME':
    case 'CURRENT_USER':
    case 'CURRENT_CATALOG':
    case 'CURRENT_SCHEMA':
    case 'CURRENT_PATH':
    case 'CURRENT_ROLE': {
      c.next();
      // An optional precision: current_timestamp(3).
      if ((word === 'CURRENT_TIMESTAMP' || word === 'LOCALTIMESTAMP' || word === 'CURRENT_TIME' || word === 'LOCALTIME') && c.acceptSymbol('(')) {
        if (c.token.kind !== 'integer') throw c.fail(['<integer>']);
        c.next();
        c.expectSymbol(')');
      }
      return { type: 'function', name: { name: [{ type: 'origin', value: word }] }, args: { type: 'expr_list', value: [] }, over: null, loc: c.loc(t.start) };
    }
    case 'ARRAY':
      if (after.kind === 'symbol' && after.text === '[') throw c.notSupported('ARRAY constructor');
      break;
    case 'ROW':
      if (after.kind === 'symbol' && after.text === '(') throw c.notSupported('ROW constructor');
      break;
    case 'POSITION':
      if (after.kind === 'symbol' && after.text === '(') return position(c);
      break;
    case 'SUBSTRING':
      if (after.kind === 'symbol' && after.text === '(') return substring(c);
      break;
    case 'TRIM':
      return trim(c);
    case 'GROUPING':
      // grouping(a, b): a call, though GROUPING is reserved (for GROUPING SETS).
      if (after.kind === 'symbol' && after.text === '(') return call(c);
      break;
    case 'NORMALIZE':
    case 'JSON_ARRAY':
    case 'JSON_EXISTS':
    case 'JSON_OBJECT':
    case 'JSON_QUERY':
    case 'JSON_VALUE':
    case 'LISTAGG':
      if (word === 'LISTAGG') return call(c);
      throw c.notSupported(word);
    default:
      break;
  }
  if (after.kind === 'string' && !RESERVED.has(word)) {
    c.next();
    c.next();
    const literal = TYPED_LITERALS[word];
    if (literal) return { type: literal, value: after.value };
    // `DECIMAL '1.5'`, `REAL '2'`, …: a cast of the string.
    return { type: 'cast', keyword: 'cast', symbol: 'as', expr: { type: 'single_quote_string', value: after.value }, target: [{ dataType: word, suffix: [] }] };
  }
  if (RESERVED.has(word)) throw c.fail([EXPRESSION]);
  return nameOrCall(c);
}

/** A possibly qualified name: a column reference, or a function call when `(` follows. */
function nameOrCall(c: Cursor): Expression {
  const start = c.offset;
  const parts: Token[] = [c.identifier()];
  while (c.isSymbol('.')) {
    c.next();
    if (c.isSymbol('*')) {
      // `t.*` is a select item; the caller checks where it stands.
      c.next();
      return { type: 'column_ref', table: { type: 'default', value: parts.map((p) => p.value).join('.') }, column: '*' };
    }
    parts.push(c.identifier());
  }
  if (c.isSymbol('(')) return call(c, parts, start);
  if (c.isSymbol('->')) throw c.notSupported('Lambda expression');
  if (parts.length > 4) throw c.notSupported('Field reference');
  const values = parts.map((p) => p.value);
  const column = values[values.length - 1];
  const ref: ColumnRef = { type: 'column_ref', table: null, column: { expr: { type: 'default', value: column } } };
  if (values.length >= 2) ref.table = values[values.length - 2];
  if (values.length >= 3) ref.schema = values[values.length - 3];
  if (values.length === 4) throw c.notSupported('Catalog-qualified column reference');
  return ref;
}

/** A function call, with DISTINCT, FILTER, WITHIN GROUP (listagg) and OVER. */
function call(c: Cursor, nameParts?: Token[], start = c.offset): Expression {
  const parts = nameParts ?? [c.next()];
  const nameToken = parts[parts.length - 1];
  const name = parts.map((p) => p.value).join('.').toLowerCase();
  c.expectSymbol('(');
  let distinct: 'DISTINCT' | null = null;
  let star = false;
  const args: Expression[] = [];
  if (c.isSymbol('*') && c.isSymbol(')', 1)) {
    c.next();
    star = true;
  } else if (!c.isSymbol(')')) {
    if (c.acceptWord('DISTINCT')) distinct = 'DISTINCT';
    else c.acceptWord('ALL');
    args.push(expression(c));
    while (c.acceptSymbol(',')) args.push(expression(c));
    if (c.isWord('ORDER')) throw c.notSupported('ORDER BY inside an aggregate call');
  }
  c.expectSymbol(')', "','");
  if (distinct && args.length === 0) throw c.fail([EXPRESSION]);
  const within = name === 'listagg' && c.isWord('WITHIN') ? withinGroup(c) : null;
  if (name === 'listagg' && !within) throw c.fail(["'WITHIN'"]);
  let filter: { where: Expression } | null = null;
  if (c.isWord('FILTER')) {
    c.next();
    c.expectSymbol('(');
    c.expectWord('WHERE');
    filter = { where: expression(c) };
    c.expectSymbol(')');
  }
  if (c.isWord('IGNORE') && c.isWord('NULLS', 1)) throw c.notSupported('IGNORE NULLS');
  c.acceptWord('RESPECT', 'NULLS');
  const over = c.isWord('OVER') ? windowOver(c) : null;
  const loc = c.loc(start);
  if (star && name !== 'count') throw c.fail([EXPRESSION]);
  if (AGGR_FUNC_NAMES.has(name) && parts.length === 1) {
    if (args.length > 1) throw c.notSupported(`${name}() with ${args.length} arguments`, nameToken);
    // count() is count(*); the others need an argument.
    if (!star && args.length === 0 && name !== 'count') throw c.notSupported(`${name}() without arguments`, nameToken);
    const node: AggregateCall = { type: 'aggr_func', name: name.toUpperCase(), args: { expr: args[0] ?? { type: 'star', value: '*' }, distinct }, over, loc };
    if (filter) node.filter = filter;
    return node;
  }
  if (over && WINDOW_FUNCTION_NAMES.has(name)) {
    const node: WindowFunctionCall = { type: 'window_func', name, over, loc };
    if (args.length) node.args = { type: 'expr_list', value: args };
    return node;
  }
  const allArgs = within ? [...args, ...within] : args;
  const node: FunctionCall = { type: 'function', name: { name: parts.map((p): Identifier => ({ type: 'default', value: p.value })) }, args: { type: 'expr_list', value: allArgs }, loc };
  if (distinct) {
    if (!AGGREGATE_NAMES.has(name)) throw c.notSupported(`DISTINCT in a call of ${name}()`, nameToken);
    node.args.distinct = distinct;
  }
  if (filter) node.filter = filter;
  if (over) node.over = over;
  return node;
}

/**
 * `WITHIN GROUP (ORDER BY k1 [DESC] [NULLS FIRST], …)` as listagg's extra arguments: a string of
 * each key's direction (A/D) and NULL place (l/f), then the keys.
 */
function withinGroup(c: Cursor): Expression[] {
  c.expectWord('WITHIN');
  c.expectWord('GROUP');
  c.expectSymbol('(');
  c.expectWord('ORDER');
  c.expectWord('BY');
  const items = sortItems(c);
  c.expectSymbol(')');
  const dirs = items.map((o) => (o.type === 'DESC' ? 'D' : 'A') + (o.nulls === 'NULLS FIRST' ? 'f' : 'l')).join('');
  return [{ type: 'single_quote_string', value: dirs }, ...items.map((o) => o.expr)];
}

export function sortItems(c: Cursor): OrderItem[] {
  const items: OrderItem[] = [];
  do {
    const expr = expression(c);
    let type: OrderItem['type'] = null;
    if (c.acceptWord('ASC')) type = 'ASC';
    else if (c.acceptWord('DESC')) type = 'DESC';
    let nulls: OrderItem['nulls'] = null;
    if (c.acceptWord('NULLS')) {
      if (c.acceptWord('FIRST')) nulls = 'NULLS FIRST';
      else if (c.acceptWord('LAST')) nulls = 'NULLS LAST';
      else throw c.fail(["'FIRST'", "'LAST'"]);
    }
    items.push({ expr, type, nulls });
  } while (c.acceptSymbol(','));
  return items;
}

function windowOver(c: Cursor): Over {
  c.expectWord('OVER');
  if (c.isIdentifier()) return { type: 'window', as_window_specification: c.next().value };
  c.expectSymbol('(');
  if (c.isIdentifier() && !['PARTITION', 'ORDER', 'ROWS', 'RANGE', 'GROUPS'].some((w) => c.isWord(w))) throw c.notSupported('A named window reference');
  const spec: WindowSpec = { name: null, partitionby: null, orderby: null, window_frame_clause: null };
  if (c.acceptWord('PARTITION')) {
    c.expectWord('BY');
    spec.partitionby = [];
    do spec.partitionby.push({ type: 'expr', expr: expression(c) });
    while (c.acceptSymbol(','));
  }
  if (c.acceptWord('ORDER')) {
    c.expectWord('BY');
    spec.orderby = sortItems(c);
  }
  if (c.isWord('ROWS') || c.isWord('RANGE') || c.isWord('GROUPS')) spec.window_frame_clause = frame(c);
  c.expectSymbol(')', "'PARTITION'", "'ORDER'", "'ROWS'", "'RANGE'", "'GROUPS'");
  return { type: 'window', as_window_specification: { window_specification: spec, parentheses: true } };
}

function frame(c: Cursor): WindowSpec['window_frame_clause'] {
  const start = c.offset;
  const unit = c.next().text.toLowerCase();
  if (c.acceptWord('BETWEEN')) {
    const from = frameBound(c);
    c.expectWord('AND');
    const to = frameBound(c);
    const text = (b: Expression): string => String((b as Origin).value);
    // RANGE frames that say what a default or a ROWS frame says (the analyzer takes RANGE only for those).
    if (unit === 'range' && text(from) === 'UNBOUNDED PRECEDING' && text(to) === 'CURRENT ROW') return null;
    const u = unit === 'range' && text(from) === 'UNBOUNDED PRECEDING' && text(to) === 'UNBOUNDED FOLLOWING' ? 'rows' : unit;
    return { type: 'binary_expr', operator: 'BETWEEN', left: { type: 'origin', value: u }, right: { type: 'expr_list', value: [from, to] }, loc: c.loc(start) };
  }
  const bound = frameBound(c);
  if (unit === 'range' && (bound as Origin).value === 'UNBOUNDED PRECEDING') return null;
  return { type: unit, expr: bound };
}

/** UNBOUNDED PRECEDING | UNBOUNDED FOLLOWING | CURRENT ROW | n PRECEDING | n FOLLOWING, as the analyzer reads them (text). */
function frameBound(c: Cursor): Expression {
  if (c.acceptWord('UNBOUNDED')) {
    if (c.acceptWord('PRECEDING')) return { type: 'origin', value: 'UNBOUNDED PRECEDING' };
    c.expectWord('FOLLOWING', "'PRECEDING'");
    return { type: 'origin', value: 'UNBOUNDED FOLLOWING' };
  }
  if (c.acceptWord('CURRENT')) {
    c.expectWord('ROW');
    return { type: 'origin', value: 'CURRENT ROW' };
  }
  const at = c.offset;
  const offset = valueExpression(c);
  const text = offset.type === 'number' && typeof offset.value === 'number' ? String(offset.value) : c.sql.slice(at, c.previousEnd).trim();
  if (c.acceptWord('PRECEDING')) return { type: 'number', value: `${text} PRECEDING` };
  c.expectWord('FOLLOWING', "'PRECEDING'");
  return { type: 'number', value: `${text} FOLLOWING` };
}

function caseExpression(c: Cursor): CaseExpr {
  c.expectWord('CASE');
  const operand = c.isWord('WHEN') ? null : expression(c);
  const args: CaseExpr['args'] = [];
  while (c.acceptWord('WHEN')) {
    const cond = expression(c);
    c.expectWord('THEN');
    args.push({ type: 'when', cond, result: expression(c) });
  }
  if (args.length === 0) throw c.fail(["'WHEN'"]);
  if (c.acceptWord('ELSE')) args.push({ type: 'else', result: expression(c) });
  c.expectWord('END', "'WHEN'", "'ELSE'");
  return { type: 'case', expr: operand, args };
}

function cast(c: Cursor, safe: boolean): Expression {
  const start = c.offset;
  c.next();
  c.expectSymbol('(');
  const value = expression(c);
  c.expectWord('AS');
  const target = typeName(c);
  c.expectSymbol(')');
  const node: CastExpr = { type: 'cast', keyword: 'cast', expr: value, symbol: 'as', target: [target] };
  if (!safe) return node;
  // try_cast travels as a call of try_cast__ around the CAST (bind.ts).
  return { type: 'function', name: { name: [{ type: 'default', value: 'try_cast__' }] }, args: { type: 'expr_list', value: [node] }, loc: c.loc(start) };
}

/** A type name as CAST writes it: `varchar(3)`, `decimal(10, 2)`, `double precision`, `timestamp(3) with time zone`, … */
export function typeName(c: Cursor): CastTarget {
  const first = c.token;
  if (first.kind !== 'word' && first.kind !== 'quoted') throw c.fail(['<type>']);
  c.next();
  const words = [first.value.toUpperCase()];
  const target: CastTarget = { dataType: '', suffix: [] };
  if (words[0] === 'DOUBLE' && c.acceptWord('PRECISION')) words.push('PRECISION');
  if ((words[0] === 'CHARACTER' || words[0] === 'CHAR') && c.acceptWord('VARYING')) words.push('VARYING');
  if (words[0] === 'ARRAY' || words[0] === 'MAP' || words[0] === 'ROW') throw c.notSupported(`${words[0]} type`, first);
  if (words[0] === 'INTERVAL') throw c.notSupported('CAST to INTERVAL', first);
  if (c.acceptSymbol('(')) {
    const params: number[] = [];
    do {
      if (c.token.kind !== 'integer') throw c.fail(['<integer>']);
      params.push(Number(c.next().text));
    } while (c.acceptSymbol(','));
    c.expectSymbol(')', "','");
    target.length = params[0];
    if (params.length > 1) target.scale = params[1];
    target.parentheses = true;
  }
  if ((words[0] === 'TIMESTAMP' || words[0] === 'TIME') && (c.isWord('WITH') || c.isWord('WITHOUT'))) {
    const zone = c.next().text.toUpperCase();
    c.expectWord('TIME');
    c.expectWord('ZONE');
    if (zone === 'WITH') throw c.notSupported(`${words[0]} WITH TIME ZONE`, first);
  }
  target.dataType = words.join(' ');
  return target;
}

function extract(c: Cursor): Expression {
  const start = c.offset;
  c.next();
  c.expectSymbol('(');
  const field = c.identifier().value.toLowerCase();
  c.expectWord('FROM');
  const source = expression(c);
  c.expectSymbol(')');
  return { type: 'extract', args: { field, cast_type: null, source }, loc: c.loc(start) };
}

function interval(c: Cursor): Expression {
  c.expectWord('INTERVAL');
  let sign = '';
  if (c.isSymbol('-') || c.isSymbol('+')) sign = c.next().text === '-' ? '-' : '';
  const t = c.token;
  if (t.kind !== 'string') throw c.fail(['<string>']);
  c.next();
  const unit = c.identifier().value.toLowerCase();
  if (c.isWord('TO')) throw c.notSupported('INTERVAL … TO … literal');
  const value = sign === '-' ? (t.value.trim().startsWith('-') ? t.value.trim().slice(1) : `-${t.value.trim()}`) : t.value;
  return { type: 'interval', expr: { type: 'single_quote_string', value }, unit };
}

/** `position(a IN b)` as the call the binder reads: position(a, IN, b). */
function position(c: Cursor): Expression {
  const start = c.offset;
  c.next();
  c.expectSymbol('(');
  const needle = valueExpression(c);
  if (!c.isWord('IN')) {
    const rest: Expression[] = [needle];
    while (c.acceptSymbol(',')) rest.push(expression(c));
    c.expectSymbol(')', "'IN'");
    return { type: 'function', name: { name: [{ type: 'default', value: 'position' }] }, args: { type: 'expr_list', value: rest }, loc: c.loc(start) };
  }
  c.next();
  const haystack = valueExpression(c);
  c.expectSymbol(')');
  return { type: 'function', name: { name: [{ type: 'origin', value: 'position' }] }, args: { type: 'expr_list', value: [needle, { type: 'origin', value: 'in' }, haystack] }, loc: c.loc(start) };
}

/** `substring(x FROM a [FOR b])` as substring(x, a[, b]); the comma form as it is. */
function substring(c: Cursor): Expression {
  const start = c.offset;
  const name = c.next();
  c.expectSymbol('(');
  const args = [expression(c)];
  if (c.acceptWord('FROM')) {
    args.push(expression(c));
    if (c.acceptWord('FOR')) args.push(expression(c));
  } else while (c.acceptSymbol(',')) args.push(expression(c));
  c.expectSymbol(')', "','");
  return { type: 'function', name: { name: [{ type: 'default', value: name.value }] }, args: { type: 'expr_list', value: args }, loc: c.loc(start) };
}

/** trim(x); the `trim([BOTH | LEADING | TRAILING] [chars] FROM x)` form is not supported. */
function trim(c: Cursor): Expression {
  const start = c.offset;
  const name = c.next();
  c.expectSymbol('(');
  if (c.isWord('BOTH') || c.isWord('LEADING') || c.isWord('TRAILING')) throw c.notSupported('trim(BOTH | LEADING | TRAILING … FROM …)');
  const args = [expression(c)];
  if (c.isWord('FROM')) throw c.notSupported('trim(… FROM …)');
  while (c.acceptSymbol(',')) args.push(expression(c));
  c.expectSymbol(')', "','");
  return { type: 'function', name: { name: [{ type: 'origin', value: name.value.toLowerCase() }] }, args: { type: 'expr_list', value: args }, loc: c.loc(start) };
}
