// Trino's implicit coercions: the common super type of two types, and whether one converts to another.

import {
  BIGINT,
  DOUBLE,
  INTEGER,
  MAX_DECIMAL_PRECISION,
  REAL,
  SMALLINT,
  TIMESTAMP,
  TINYINT,
  VARCHAR,
  decimal,
  isIntegral,
  type SqlType,
} from '../data/types.js';

const INTEGRAL_RANK: Record<string, number> = { tinyint: 1, smallint: 2, integer: 3, bigint: 4 };
const INTEGRAL_DIGITS: Record<string, number> = { tinyint: 3, smallint: 5, integer: 10, bigint: 19 };
const INTEGRAL_BY_RANK = [TINYINT, TINYINT, SMALLINT, INTEGER, BIGINT];

/** The decimal type that holds every value of an integral type. */
export function integralAsDecimal(t: SqlType): SqlType {
  return decimal(INTEGRAL_DIGITS[t.id], 0);
}

/** The common super type, or undefined when the two types do not mix. */
export function commonSuperType(a: SqlType, b: SqlType): SqlType | undefined {
  if (a.id === 'unknown') return b;
  if (b.id === 'unknown') return a;
  if (a.id === b.id) {
    if (a.id === 'varchar') {
      return a.precision === undefined || b.precision === undefined ? VARCHAR : { id: 'varchar', precision: Math.max(a.precision, b.precision) };
    }
    if (a.id === 'decimal') return decimalSuper(a, b);
    return a;
  }
  if (isIntegral(a) && isIntegral(b)) return INTEGRAL_BY_RANK[Math.max(INTEGRAL_RANK[a.id], INTEGRAL_RANK[b.id])];
  if (a.id === 'decimal' && isIntegral(b)) return decimalSuper(a, integralAsDecimal(b));
  if (b.id === 'decimal' && isIntegral(a)) return decimalSuper(integralAsDecimal(a), b);
  const numericA = isIntegral(a) || a.id === 'decimal' || a.id === 'real' || a.id === 'double';
  const numericB = isIntegral(b) || b.id === 'decimal' || b.id === 'real' || b.id === 'double';
  if (numericA && numericB) {
    if ((a.id === 'real' && b.id !== 'double') || (b.id === 'real' && a.id !== 'double')) return REAL;
    return DOUBLE;
  }
  if ((a.id === 'date' && b.id === 'timestamp') || (a.id === 'timestamp' && b.id === 'date')) return TIMESTAMP;
  return undefined;
}

function decimalSuper(a: SqlType, b: SqlType): SqlType {
  const scale = Math.max(a.scale ?? 0, b.scale ?? 0);
  const intDigits = Math.max((a.precision ?? 0) - (a.scale ?? 0), (b.precision ?? 0) - (b.scale ?? 0));
  return decimal(Math.min(MAX_DECIMAL_PRECISION, intDigits + scale), scale);
}

/** Whether a value of type `from` may be implicitly coerced to `to`. */
export function canCoerce(from: SqlType, to: SqlType): boolean {
  if (from.id === 'unknown') return true;
  const s = commonSuperType(from, to);
  return s !== undefined && s.id === to.id && (to.id !== 'decimal' || ((s.precision ?? 0) <= (to.precision ?? 0) && s.scale === to.scale) || from.id !== 'decimal');
}

export { BIGINT, DOUBLE, INTEGER };
