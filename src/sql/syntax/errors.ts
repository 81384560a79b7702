// Syntax errors in Trino's words: `mismatched input 'X'. Expecting: 'A', 'B', <expression>` at the
// offending token's line and column.

import { EngineError } from '../../util/engine-error.js';
import { locationAt } from '../lexical.js';
import type { Token } from './lexer.js';

export function mismatched(sql: string, token: Token, expecting: readonly string[]): EngineError {
  const suffix = expecting.length ? `. Expecting: ${expecting.join(', ')}` : '';
  return new EngineError('SYNTAX_ERROR', `mismatched input '${token.text}'${suffix}`, locationAt(sql, token.start));
}

/** A form Trino's grammar takes that this engine does not run. */
export function notSupported(sql: string, token: Token, what: string): EngineError {
  return new EngineError('NOT_SUPPORTED', `${what} is not supported`, locationAt(sql, token.start));
}
