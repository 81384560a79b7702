// Literal parsing and constant casts for the analyzer (thin wrappers over data/values.ts).

import { castValue, parseDateLiteral, parseTimestampLiteral } from '../data/values.js';
import type { SqlType } from '../data/types.js';
import type { LiteralValue } from './ir.js';

export { parseDateLiteral, parseTimestampLiteral };

/** Casts a constant at analysis time; errors surface as the query's error, as they would at run time. */
export function castConstant(value: LiteralValue, from: SqlType, to: SqlType, safe: boolean): LiteralValue {
  if (value === null) return null;
  return castValue(value, from, to, safe);
}
