// Entry points of the query parser: a query's text to its SelectNode, an expression's text to its
// node. Linear in the text: one token of look-ahead (a few at fixed places), no backtracking.

import { Cursor } from './cursor.js';
import { expression } from './expressions.js';
import { tokenize } from './lexer.js';
import type { Expression, SelectNode } from './nodes.js';
import { query } from './queries.js';

/** Parses a whole query (SELECT, WITH, VALUES, TABLE or a parenthesized query). */
export function parseQueryText(sql: string): SelectNode {
  const c = new Cursor(sql, tokenize(sql));
  const q = query(c);
  if (c.token.kind !== 'eof') throw c.fail(['<EOF>']);
  return q;
}

/** Parses one expression that makes up the whole text (after `from`, which is blank or a prefix the caller skips). */
export function parseExpressionText(sql: string, from = 0): Expression {
  const c = new Cursor(sql, tokenize(sql).filter((t) => t.start >= from));
  const e = expression(c);
  if (c.token.kind !== 'eof') throw c.fail(['<EOF>']);
  return e;
}
