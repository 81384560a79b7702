// The parser's position in the token list: look-ahead, keyword tests and expectations. Keywords
// are unquoted words compared case-insensitively; a "quoted" word is always an identifier.

import { EngineError } from '../../util/engine-error.js';
import { locationAt } from '../lexical.js';
import { mismatched, notSupported } from './errors.js';
import type { Token } from './lexer.js';
import type { Loc } from './nodes.js';

/** Trino's reserved words: never identifiers unless quoted. */
export const RESERVED: ReadonlySet<string> = new Set(
  ('ALTER AND AS BETWEEN BY CASE CAST CONSTRAINT CREATE CROSS CUBE CURRENT_CATALOG CURRENT_DATE CURRENT_PATH CURRENT_ROLE ' +
    'CURRENT_SCHEMA CURRENT_TIME CURRENT_TIMESTAMP CURRENT_USER DEALLOCATE DELETE DESCRIBE DISTINCT DROP ELSE END ESCAPE ' +
    'EXCEPT EXECUTE EXISTS EXTRACT FALSE FOR FROM FULL GROUP GROUPING HAVING IN INNER INSERT INTERSECT INTO IS JOIN ' +
    'JSON_ARRAY JSON_EXISTS JSON_OBJECT JSON_QUERY JSON_TABLE JSON_VALUE LEFT LIKE LISTAGG LOCALTIME LOCALTIMESTAMP NATURAL ' +
    'NORMALIZE NOT NULL ON OR ORDER OUTER PREPARE RECURSIVE RIGHT ROLLUP SELECT SKIP TABLE THEN TRIM TRUE UESCAPE UNION ' +
    'UNNEST USING VALUES WHEN WHERE WITH').split(' '),
);

/** How deep expressions and queries may nest before the statement is refused (the parser recurses). */
const MAX_DEPTH = 400;

export class Cursor {
  private pos = 0;
  private depth = 0;
  /** Offsets where lines start, for line and column of a node without rescanning the text. */
  private readonly lineStarts: number[] = [0];

  constructor(
    readonly sql: string,
    private readonly tokens: readonly Token[],
  ) {
    for (let i = sql.indexOf('\n'); i >= 0; i = sql.indexOf('\n', i + 1)) this.lineStarts.push(i + 1);
  }

  private position(offset: number): { offset: number; line: number; column: number } {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { offset, line: lo + 1, column: offset - this.lineStarts[lo] + 1 };
  }

  get token(): Token {
    return this.tokens[this.pos];
  }

  peek(ahead = 1): Token {
    return this.tokens[Math.min(this.pos + ahead, this.tokens.length - 1)];
  }

  next(): Token {
    const t = this.tokens[this.pos];
    if (t.kind !== 'eof') this.pos++;
    return t;
  }

  /** Whether the current token (or one ahead) is the keyword `word` (upper case). */
  isWord(word: string, ahead = 0): boolean {
    const t = ahead === 0 ? this.token : this.peek(ahead);
    return t.keyword === word;
  }

  isSymbol(symbol: string, ahead = 0): boolean {
    const t = ahead === 0 ? this.token : this.peek(ahead);
    return t.kind === 'symbol' && t.text === symbol;
  }

  acceptWord(...words: string[]): boolean {
    if (!words.every((w, i) => this.isWord(w, i))) return false;
    for (let i = 0; i < words.length; i++) this.next();
    return true;
  }

  acceptSymbol(symbol: string): boolean {
    if (!this.isSymbol(symbol)) return false;
    this.next();
    return true;
  }

  expectWord(word: string, ...alsoExpected: string[]): Token {
    if (!this.isWord(word)) throw this.fail([`'${word}'`, ...alsoExpected]);
    return this.next();
  }

  expectSymbol(symbol: string, ...alsoExpected: string[]): Token {
    if (!this.isSymbol(symbol)) throw this.fail([...alsoExpected, `'${symbol}'`]);
    return this.next();
  }

  /** An identifier: a quoted name, or a word that is not reserved. */
  isIdentifier(ahead = 0): boolean {
    const t = ahead === 0 ? this.token : this.peek(ahead);
    return t.kind === 'quoted' || (t.kind === 'word' && !RESERVED.has(t.keyword));
  }

  /** The identifier's name: quoted as written, unquoted as written (the analyzer folds case). */
  identifier(): Token {
    if (!this.isIdentifier()) throw this.fail(['<identifier>']);
    return this.next();
  }

  fail(expecting: readonly string[]): EngineError {
    return mismatched(this.sql, this.token, expecting);
  }

  notSupported(what: string, at: Token = this.token): EngineError {
    return notSupported(this.sql, at, what);
  }

  /** Runs a nested parse, refusing statements nested deeper than the parser's recursion can take. */
  nested<T>(parse: () => T): T {
    if (++this.depth > MAX_DEPTH) {
      throw new EngineError('SYNTAX_ERROR', 'Statement is too large (stack overflow while parsing)', locationAt(this.sql, this.token.start));
    }
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  /** The source span from offset `start` to the end of the last consumed token. */
  loc(start: number): Loc {
    const end = this.pos > 0 ? this.tokens[this.pos - 1].end : start;
    return { start: this.position(start), end: this.position(end) };
  }

  /** Where the last consumed token ends. */
  get previousEnd(): number {
    return this.pos > 0 ? this.tokens[this.pos - 1].end : 0;
  }

  /** Offset of the current token. */
  get offset(): number {
    return this.token.start;
  }
}
