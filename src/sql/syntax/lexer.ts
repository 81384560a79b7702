// Trino's lexical rules: `''` inside a string is one quote and a backslash is an ordinary
// character; "quoted" identifiers keep their case; U&'…' strings, X'…' binary literals; integer,
// decimal and double literals; `--` and `/* */` comments. Tokens carry their offsets.

import { EngineError } from '../../util/engine-error.js';
import { locationAt } from '../lexical.js';

export type TokenKind = 'word' | 'quoted' | 'string' | 'unicodeString' | 'binary' | 'integer' | 'decimal' | 'double' | 'symbol' | 'eof';

export interface Token {
  readonly kind: TokenKind;
  /** The source text of the token. */
  readonly text: string;
  /** Identifier name (quotes removed) or string value (quotes removed, `''` collapsed). */
  readonly value: string;
  /** An unquoted word in upper case (to compare with keywords); empty for other tokens. */
  readonly keyword: string;
  /** Offset of the first character. */
  readonly start: number;
  readonly end: number;
}

const SYMBOLS = ['<>', '!=', '<=', '>=', '||', '->', '=>', '::', '(', ')', ',', '.', '*', '/', '%', '+', '-', '=', '<', '>', '[', ']', '?', ';', ':', '|', '^', '{', '}'];

const LETTER = /\p{L}/u;
const isIdentStart = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || (c > 127 && LETTER.test(String.fromCharCode(c)));
const isIdentPart = (c: number): boolean => isIdentStart(c) || (c >= 48 && c <= 57) || c === 36;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** Splits a statement into tokens (the last one `eof`); an unterminated quote or comment is a syntax error. */
export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  const n = sql.length;
  let i = 0;
  const push = (kind: TokenKind, start: number, end: number, value = sql.slice(start, end)): void => {
    const text = sql.slice(start, end);
    tokens.push({ kind, text, value, keyword: kind === 'word' ? text.toUpperCase() : '', start, end });
  };
  const quoted = (start: number, quote: string): { end: number; value: string } => {
    let value = '';
    let j = start + 1;
    for (;;) {
      const k = sql.indexOf(quote, j);
      if (k < 0) throw new EngineError('SYNTAX_ERROR', `Unterminated ${quote === "'" ? 'string literal' : 'quoted identifier'}: ${sql.slice(start, start + 20)}`, locationAt(sql, start));
      value += sql.slice(j, k);
      if (sql[k + 1] === quote) {
        value += quote;
        j = k + 2;
      } else return { end: k + 1, value };
    }
  };
  while (i < n) {
    const c = sql.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 12) {
      i++;
      continue;
    }
    if (c === 45 && sql.charCodeAt(i + 1) === 45) {
      const e = sql.indexOf('\n', i);
      i = e < 0 ? n : e + 1;
      continue;
    }
    if (c === 47 && sql.charCodeAt(i + 1) === 42) {
      const e = sql.indexOf('*/', i + 2);
      if (e < 0) throw new EngineError('SYNTAX_ERROR', 'Unterminated comment: /* without */', locationAt(sql, i));
      i = e + 2;
      continue;
    }
    const start = i;
    if (c === 39) {
      const q = quoted(i, "'");
      push('string', start, q.end, q.value);
      i = q.end;
    } else if (c === 34) {
      const q = quoted(i, '"');
      if (q.value === '') throw new EngineError('SYNTAX_ERROR', 'Zero-length delimited identifier not allowed', locationAt(sql, start));
      push('quoted', start, q.end, q.value);
      i = q.end;
    } else if ((c === 85 || c === 117) && sql[i + 1] === '&' && sql[i + 2] === "'") {
      const q = quoted(i + 2, "'");
      push('unicodeString', start, q.end, q.value);
      i = q.end;
    } else if ((c === 88 || c === 120) && sql[i + 1] === "'") {
      const q = quoted(i + 1, "'");
      push('binary', start, q.end, q.value);
      i = q.end;
    } else if (isDigit(c) || (c === 46 && isDigit(sql.charCodeAt(i + 1)))) {
      let j = i;
      while (isDigit(sql.charCodeAt(j))) j++;
      let kind: TokenKind = 'integer';
      if (sql[j] === '.') {
        kind = 'decimal';
        j++;
        while (isDigit(sql.charCodeAt(j))) j++;
      }
      if ((sql[j] === 'e' || sql[j] === 'E') && (isDigit(sql.charCodeAt(j + 1)) || ((sql[j + 1] === '+' || sql[j + 1] === '-') && isDigit(sql.charCodeAt(j + 2))))) {
        kind = 'double';
        j += 2;
        while (isDigit(sql.charCodeAt(j))) j++;
      }
      // `123abc` is one malformed token in Trino, not a number followed by a name.
      if (j < n && isIdentStart(sql.charCodeAt(j))) {
        let k = j;
        while (k < n && isIdentPart(sql.charCodeAt(k))) k++;
        throw new EngineError('SYNTAX_ERROR', `mismatched input '${sql.slice(start, k)}'`, locationAt(sql, start));
      }
      push(kind, start, j);
      i = j;
    } else if (isIdentStart(c)) {
      let j = i + 1;
      while (j < n && isIdentPart(sql.charCodeAt(j))) j++;
      push('word', start, j);
      i = j;
    } else {
      const sym = SYMBOLS.find((s) => sql.startsWith(s, i));
      if (!sym) throw new EngineError('SYNTAX_ERROR', `token recognition error at: '${sql[i]}'`, locationAt(sql, i));
      push('symbol', start, i + sym.length);
      i += sym.length;
    }
  }
  tokens.push({ kind: 'eof', text: '<EOF>', value: '', keyword: '', start: n, end: n });
  return tokens;
}
