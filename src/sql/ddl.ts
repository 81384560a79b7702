// Write statements: CREATE/DROP SCHEMA, CREATE TABLE (columns or AS query), INSERT, DELETE, DROP
// TABLE. The statement's frame is recognised here by hand; the parts that are queries or
// expressions go to the query parser (syntax/) with every character kept in place, so locations in
// errors point into the original text. Executed by coordinator/writes.ts.

import { BIGINT, BOOLEAN, DATE, DOUBLE, INTEGER, REAL, SMALLINT, TIMESTAMP, TINYINT, decimal, varchar, MAX_DECIMAL_PRECISION, type SqlType } from '../data/types.js';
import { EngineError, type SourceLocation } from '../util/engine-error.js';
import type { AstNode } from './ast.js';
import { IDENT, identifierText, locationAt, skipQuoted, splitQualified, splitTopLevel } from './lexical.js';
import { parseExpressionText } from './syntax/parser.js';
import type { SelectNode } from './syntax/nodes.js';

export interface ColumnDefinition {
  readonly name: string;
  readonly type: SqlType;
}

interface Located {
  /** The statement's text (trailing semicolon removed). */
  readonly sql: string;
  /** Where the statement starts (Trino reports statement-level errors there). */
  readonly location: SourceLocation;
}

export type WriteStatement = Located &
  (
    | { readonly kind: 'createSchema'; readonly name: string[]; readonly ifNotExists: boolean }
    | { readonly kind: 'dropSchema'; readonly name: string[]; readonly ifExists: boolean; readonly cascade: boolean }
    | { readonly kind: 'createTable'; readonly name: string[]; readonly ifNotExists: boolean; readonly columns: ColumnDefinition[] }
    | {
        readonly kind: 'createTableAs';
        readonly name: string[];
        readonly ifNotExists: boolean;
        readonly columnAliases: string[] | null;
        readonly query: AstNode;
        /** The text the query's AST locations refer to (the statement with its frame blanked out). */
        readonly querySql: string;
        readonly withData: boolean;
      }
    | { readonly kind: 'insert'; readonly name: string[]; readonly columns: string[] | null; readonly query: AstNode; readonly querySql: string }
    /** `keep` selects the rows that stay (`SELECT * FROM t WHERE NOT coalesce(<where>, false)`); null without WHERE. */
    | { readonly kind: 'delete'; readonly name: string[]; readonly keep: AstNode | null }
    | { readonly kind: 'dropTable'; readonly name: string[]; readonly ifExists: boolean }
    | { readonly kind: 'truncate'; readonly name: string[] }
    | { readonly kind: 'renameTable'; readonly name: string[]; readonly ifExists: boolean; readonly newName: string[] }
    | { readonly kind: 'addColumn'; readonly name: string[]; readonly ifExists: boolean; readonly column: ColumnDefinition; readonly ifNotExists: boolean }
    | { readonly kind: 'createView'; readonly name: string[]; readonly replace: boolean; readonly query: AstNode; readonly querySql: string; readonly queryText: string }
    | { readonly kind: 'dropView'; readonly name: string[]; readonly ifExists: boolean }
    | { readonly kind: 'dropColumn'; readonly name: string[]; readonly ifExists: boolean; readonly column: string; readonly columnIfExists: boolean }
    | { readonly kind: 'renameColumn'; readonly name: string[]; readonly ifExists: boolean; readonly column: string; readonly columnIfExists: boolean; readonly newColumn: string }
  );

export type WriteKind = WriteStatement['kind'];

const WRITE_KINDS: ReadonlySet<string> = new Set<WriteKind>(['createSchema', 'dropSchema', 'createTable', 'createTableAs', 'insert', 'delete', 'dropTable', 'truncate', 'renameTable', 'addColumn', 'dropColumn', 'renameColumn', 'createView', 'dropView']);

export function isWriteStatement(s: { kind: string }): s is WriteStatement {
  return WRITE_KINDS.has(s.kind);
}

/** What parse.ts lends: its query parser. */
export interface QueryParsing {
  parseQuery(sql: string): AstNode;
}

const QNAME = String.raw`${IDENT}(?:\s*\.\s*${IDENT})*`;

/**
 * Recognises a write statement. `blank` is `sql` with comments blanked (same length). Returns
 * undefined for anything else (the caller refuses other CREATE/DROP/... forms).
 */
export function parseWriteStatement(sql: string, blank: string, parsing: QueryParsing): WriteStatement | undefined {
  const start = blank.search(/\S/u);
  if (start < 0) return undefined;
  const location = locationAt(sql, start);
  const base = { sql, location };
  const text = blank.slice(start);
  let m: RegExpMatchArray | null;

  if ((m = text.match(new RegExp(String.raw`^CREATE\s+SCHEMA\s+(IF\s+NOT\s+EXISTS\s+)?(${QNAME})\s*([\s\S]*)$`, 'iu')))) {
    if (m[3]) throw new EngineError('NOT_SUPPORTED', `CREATE SCHEMA ${firstWord(m[3])} is not supported`, locationAt(sql, start + text.length - m[3].length));
    return { ...base, kind: 'createSchema', name: splitLower(m[2]), ifNotExists: Boolean(m[1]) };
  }
  if ((m = text.match(new RegExp(String.raw`^DROP\s+SCHEMA\s+(IF\s+EXISTS\s+)?(${QNAME})(?:\s+(CASCADE|RESTRICT))?\s*$`, 'iu')))) {
    return { ...base, kind: 'dropSchema', name: splitLower(m[2]), ifExists: Boolean(m[1]), cascade: (m[3] ?? '').toUpperCase() === 'CASCADE' };
  }
  if ((m = text.match(new RegExp(String.raw`^DROP\s+TABLE\s+(IF\s+EXISTS\s+)?(${QNAME})\s*$`, 'iu')))) {
    return { ...base, kind: 'dropTable', name: splitLower(m[2]), ifExists: Boolean(m[1]) };
  }
  if ((m = text.match(new RegExp(String.raw`^CREATE\s+TABLE\s+(IF\s+NOT\s+EXISTS\s+)?(${QNAME})\s*`, 'iu')))) {
    return parseCreateTable(sql, blank, start + m[0].length, { ...base, name: splitLower(m[2]), ifNotExists: Boolean(m[1]) }, parsing);
  }
  if ((m = text.match(new RegExp(String.raw`^INSERT\s+INTO\s+(${QNAME})\s*(\(\s*${IDENT}(?:\s*,\s*${IDENT})*\s*\))?\s*`, 'iu')))) {
    const name = splitLower(m[1]);
    const columns = m[2] ? splitLower(m[2]) : null;
    const rest = start + m[0].length;
    if (rest >= blank.length) throw new EngineError('SYNTAX_ERROR', `mismatched input '<EOF>'. Expecting: '(', 'SELECT', 'TABLE', 'VALUES', 'WITH'`, locationAt(sql, sql.length));
    const querySql = blankPrefix(sql, rest);
    return { ...base, kind: 'insert', name, columns, query: parsing.parseQuery(querySql), querySql };
  }
  if ((m = text.match(new RegExp(String.raw`^CREATE\s+(OR\s+REPLACE\s+)?VIEW\s+(${QNAME})\s+(?:COMMENT\s+'(?:[^']|'')*'\s+)?(?:SECURITY\s+(?:DEFINER|INVOKER)\s+)?AS\s+`, 'iu')))) {
    const queryStart = start + m[0].length;
    const querySql = blankPrefix(sql, queryStart);
    return { ...base, kind: 'createView', name: splitLower(m[2]), replace: Boolean(m[1]), query: parsing.parseQuery(querySql), querySql, queryText: sql.slice(queryStart).trim() };
  }
  if ((m = text.match(new RegExp(String.raw`^DROP\s+VIEW\s+(IF\s+EXISTS\s+)?(${QNAME})\s*$`, 'iu')))) {
    return { ...base, kind: 'dropView', name: splitLower(m[2]), ifExists: Boolean(m[1]) };
  }
  if ((m = text.match(new RegExp(String.raw`^TRUNCATE\s+TABLE\s+(${QNAME})\s*$`, 'iu')))) {
    return { ...base, kind: 'truncate', name: splitLower(m[1]) };
  }
  if ((m = text.match(new RegExp(String.raw`^ALTER\s+TABLE\s+(IF\s+EXISTS\s+)?(${QNAME})\s+`, 'iu')))) {
    const name = splitLower(m[2]);
    const ifExists = Boolean(m[1]);
    const actionAt = start + m[0].length;
    const action = blank.slice(actionAt);
    let a: RegExpMatchArray | null;
    if ((a = action.match(new RegExp(String.raw`^RENAME\s+TO\s+(${QNAME})\s*$`, 'iu')))) return { ...base, kind: 'renameTable', name, ifExists, newName: splitLower(a[1]) };
    if ((a = action.match(/^ADD\s+COLUMN\s+(IF\s+NOT\s+EXISTS\s+)?/iu))) {
      const definitionAt = actionAt + a[0].length;
      const column = columnDefinition(sql.slice(definitionAt).trim(), sql, definitionAt);
      return { ...base, kind: 'addColumn', name, ifExists, column, ifNotExists: Boolean(a[1]) };
    }
    if ((a = action.match(new RegExp(String.raw`^DROP\s+COLUMN\s+(IF\s+EXISTS\s+)?(${IDENT})\s*$`, 'iu')))) {
      return { ...base, kind: 'dropColumn', name, ifExists, column: identifierLower(a[2] as string), columnIfExists: Boolean(a[1]) };
    }
    if ((a = action.match(new RegExp(String.raw`^RENAME\s+COLUMN\s+(IF\s+EXISTS\s+)?(${IDENT})\s+TO\s+(${IDENT})\s*$`, 'iu')))) {
      return { ...base, kind: 'renameColumn', name, ifExists, column: identifierLower(a[2] as string), columnIfExists: Boolean(a[1]), newColumn: identifierLower(a[3] as string) };
    }
    throw new EngineError('NOT_SUPPORTED', `ALTER TABLE ... ${firstWords(action)} is not supported`, locationAt(sql, actionAt));
  }
  if ((m = text.match(new RegExp(String.raw`^DELETE\s+FROM\s+(${QNAME})\s*(WHERE\b)?`, 'iu')))) {
    const name = splitLower(m[1]);
    if (!m[2]) {
      if (start + m[0].length < blank.length) throw new EngineError('SYNTAX_ERROR', `mismatched input '${firstWord(blank.slice(start + m[0].length))}'. Expecting: 'WHERE', <EOF>`, locationAt(sql, start + m[0].length));
      return { ...base, kind: 'delete', name, keep: null };
    }
    return { ...base, kind: 'delete', name, keep: keepQuery(sql, start + m[0].length) };
  }
  return undefined;
}

function parseCreateTable(
  sql: string,
  blank: string,
  at: number,
  head: Located & { name: string[]; ifNotExists: boolean },
  parsing: QueryParsing,
): WriteStatement {
  let pos = at;
  let parenthesized: string | null = null;
  if (blank[pos] === '(') {
    const end = matchingParen(blank, pos);
    if (end < 0) throw new EngineError('SYNTAX_ERROR', `mismatched input '<EOF>'. Expecting: ')'`, locationAt(sql, sql.length));
    parenthesized = sql.slice(pos + 1, end);
    pos = end + 1;
  }
  const rest = blank.slice(pos);
  const as = rest.match(/^\s*AS\s+/iu);
  if (as) {
    const queryStart = pos + as[0].length;
    let queryEnd = blank.length;
    let withData = true;
    const tail = blank.slice(queryStart).match(/\s+WITH\s+(NO\s+)?DATA\s*$/iu);
    if (tail) {
      queryEnd = blank.length - tail[0].length;
      withData = !tail[1];
    }
    const columnAliases = parenthesized === null ? null : splitTopLevel(parenthesized).map((a) => identifierOnly(a, sql));
    const querySql = blankPrefix(sql.slice(0, queryEnd), queryStart);
    return { ...head, kind: 'createTableAs', columnAliases, query: parsing.parseQuery(querySql), querySql, withData };
  }
  if (parenthesized === null) {
    if (/^\s*LIKE\b/iu.test(rest)) throw new EngineError('NOT_SUPPORTED', 'CREATE TABLE ... LIKE is not supported', locationAt(sql, pos + rest.search(/\S/u)));
    throw new EngineError('SYNTAX_ERROR', `mismatched input '${firstWord(rest) || '<EOF>'}'. Expecting: '(', 'AS'`, locationAt(sql, rest.trim() ? pos + rest.search(/\S/u) : sql.length));
  }
  const trailing = rest.trim();
  if (trailing) {
    // COMMENT 'text' on the table is accepted and ignored; properties are not supported.
    if (!/^COMMENT\s+'(?:[^']|'')*'$/iu.test(trailing)) {
      throw new EngineError('NOT_SUPPORTED', `CREATE TABLE ... ${firstWord(trailing).toUpperCase()} is not supported`, locationAt(sql, pos + rest.search(/\S/u)));
    }
  }
  const columns: ColumnDefinition[] = [];
  const elementsStart = at + 1;
  let offset = 0;
  for (const element of splitTopLevel(parenthesized)) {
    const elementAt = elementsStart + parenthesized.indexOf(element, offset);
    offset = parenthesized.indexOf(element, offset) + element.length;
    columns.push(columnDefinition(element.trim(), sql, elementAt + (element.length - element.trimStart().length)));
  }
  if (columns.length === 0) throw new EngineError('SYNTAX_ERROR', `mismatched input ')'. Expecting: <identifier>`, locationAt(sql, at + 1));
  return { ...head, kind: 'createTable', columns };
}

/** The first two words of a text, upper-cased (for messages). */
function firstWords(text: string): string {
  return text.trim().split(/\s+/u).slice(0, 2).join(' ').toUpperCase();
}

function columnDefinition(text: string, sql: string, at: number): ColumnDefinition {
  const m = text.match(new RegExp(String.raw`^(${IDENT})\s+([\s\S]+)$`, 'u'));
  if (!m) {
    if (/^LIKE\b/iu.test(text)) throw new EngineError('NOT_SUPPORTED', 'CREATE TABLE ... LIKE is not supported', locationAt(sql, at));
    throw new EngineError('SYNTAX_ERROR', `mismatched input '${firstWord(text.replace(new RegExp(`^${IDENT}\\s*`, 'u'), '')) || ','}'. Expecting: <type>`, locationAt(sql, at));
  }
  const name = identifierLower(m[1]);
  let spec = m[2].trim();
  // Column options Trino allows after the type.
  spec = spec.replace(/\s+COMMENT\s+'(?:[^']|'')*'\s*$/iu, '');
  if (/\bWITH\s*\(/iu.test(spec)) throw new EngineError('NOT_SUPPORTED', `Column properties are not supported (column '${name}')`, locationAt(sql, at));
  if (/\s+NOT\s+NULL$/iu.test(spec)) throw new EngineError('NOT_SUPPORTED', `NOT NULL columns are not supported (column '${name}')`, locationAt(sql, at));
  const type = columnType(spec);
  // Trino reports both at the column definition.
  if (type === 'unknown') throw new EngineError('TYPE_NOT_FOUND', `Unknown type '${spec.toLowerCase()}' for column '${name}'`, locationAt(sql, at));
  if (type === 'unsupported') throw new EngineError('NOT_SUPPORTED', `Unsupported column type '${spec.toLowerCase()}' for column '${name}'`, locationAt(sql, at));
  return { name, type };
}

const KNOWN_UNSUPPORTED = /^(char|character|varbinary|json|time|uuid|ipaddress|array|map|row|interval|hyperloglog|qdigest|tdigest|setdigest|geometry|sphericalgeography)\b/iu;

/** A column type written the Trino way; 'unknown' for names Trino does not know either. */
function columnType(spec: string): SqlType | 'unknown' | 'unsupported' {
  const t = spec.toLowerCase().replace(/\s+/gu, ' ').replace(/\s*\(\s*/gu, '(').replace(/\s*\)/gu, ')').replace(/\s*,\s*/gu, ',');
  switch (t) {
    case 'boolean':
      return BOOLEAN;
    case 'tinyint':
      return TINYINT;
    case 'smallint':
      return SMALLINT;
    case 'integer':
    case 'int':
      return INTEGER;
    case 'bigint':
      return BIGINT;
    case 'real':
      return REAL;
    case 'double':
    case 'double precision':
      return DOUBLE;
    case 'date':
      return DATE;
    case 'timestamp':
    case 'timestamp(3)':
      return TIMESTAMP;
    case 'varchar':
      return varchar();
    case 'decimal':
      return decimal(MAX_DECIMAL_PRECISION, 0);
  }
  let m: RegExpMatchArray | null;
  if ((m = t.match(/^varchar\((\d+)\)$/u))) {
    const n = Number(m[1]);
    return n >= 1 && n <= 2147483646 ? varchar(n) : 'unsupported';
  }
  if ((m = t.match(/^decimal\((\d+)(?:,(\d+))?\)$/u))) {
    const p = Number(m[1]);
    const s = Number(m[2] ?? 0);
    return p >= 1 && p <= MAX_DECIMAL_PRECISION && s <= p ? decimal(p, s) : 'unsupported';
  }
  if (/^timestamp\(\d+\)/u.test(t) || /^timestamp with/u.test(t) || KNOWN_UNSUPPORTED.test(t)) return 'unsupported';
  return 'unknown';
}

/** `DELETE FROM t WHERE p` → `SELECT * FROM t WHERE NOT coalesce(p, false)`: the rows that stay (the analyzer is handed the table). */
function keepQuery(sql: string, predicateAt: number): AstNode {
  const predicate = parseExpressionText(sql, predicateAt);
  const keep: SelectNode = {
    with: null,
    type: 'select',
    options: null,
    distinct: { type: null },
    columns: [{ expr: { type: 'column_ref', table: null, column: '*' }, as: null }],
    into: { position: null },
    from: [{ db: null, table: '$target', as: null }],
    where: {
      type: 'unary_expr',
      operator: 'NOT',
      expr: { type: 'function', name: { name: [{ type: 'default', value: 'coalesce' }] }, args: { type: 'expr_list', value: [predicate, { type: 'bool', value: false }] } },
    },
    groupby: null,
    having: null,
    orderby: null,
    limit: { seperator: '', value: [] },
    window: null,
  };
  return keep as unknown as AstNode;
}

/** The text with everything before `offset` blanked (newlines kept), so positions still hold. */
function blankPrefix(sql: string, offset: number): string {
  return sql.slice(0, offset).replace(/[^\n]/gu, ' ') + sql.slice(offset);
}

/** Index of the `)` closing the `(` at `open`, skipping quoted text; -1 when unbalanced. */
function matchingParen(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (c === "'" || c === '"') {
      i = skipQuoted(s, i, c) - 1;
    } else if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}




function identifierOnly(text: string, sql: string): string {
  const t = text.trim();
  if (!new RegExp(`^${IDENT}$`, 'u').test(t)) throw new EngineError('SYNTAX_ERROR', `mismatched input '${firstWord(t)}'. Expecting: <identifier>`, locationAt(sql, Math.max(0, sql.indexOf(t))));
  return identifierLower(t);
}



function firstWord(s: string): string {
  return s.trim().split(/[\s(),]+/u)[0] ?? '';
}


/** Table, schema and column names are lower-cased (as Trino's memory connector stores them). */
function identifierLower(raw: string): string {
  return identifierText(raw, true);
}

function splitLower(raw: string): string[] {
  return splitQualified(raw, true);
}
