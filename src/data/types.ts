// SQL types as the engine sees them, with their Trino display names and type signatures.
// One descriptor per type; physical layout per type is decided in page.ts.

export type TypeId =
  | 'boolean'
  | 'tinyint'
  | 'smallint'
  | 'integer'
  | 'bigint'
  | 'real'
  | 'double'
  | 'decimal'
  | 'varchar'
  | 'date'
  | 'timestamp'
  | 'interval day to second'
  | 'interval year to month'
  | 'unknown';

export interface SqlType {
  readonly id: TypeId;
  /** decimal precision, or varchar length (undefined = unbounded varchar). */
  readonly precision?: number;
  /** decimal scale */
  readonly scale?: number;
}

export const BOOLEAN: SqlType = { id: 'boolean' };
export const TINYINT: SqlType = { id: 'tinyint' };
export const SMALLINT: SqlType = { id: 'smallint' };
export const INTEGER: SqlType = { id: 'integer' };
export const BIGINT: SqlType = { id: 'bigint' };
export const REAL: SqlType = { id: 'real' };
export const DOUBLE: SqlType = { id: 'double' };
export const VARCHAR: SqlType = { id: 'varchar' };
export const DATE: SqlType = { id: 'date' };
export const TIMESTAMP: SqlType = { id: 'timestamp' };
export const INTERVAL_DAY_TIME: SqlType = { id: 'interval day to second' };
export const INTERVAL_YEAR_MONTH: SqlType = { id: 'interval year to month' };
/** The type of a bare NULL literal; coerces to anything. */
export const UNKNOWN: SqlType = { id: 'unknown' };

export const MAX_DECIMAL_PRECISION = 38;
/** Trino writes unbounded varchar's length as this in type signatures. */
export const UNBOUNDED_VARCHAR_LENGTH = 2147483647;

export function varchar(length?: number): SqlType {
  return length === undefined ? VARCHAR : { id: 'varchar', precision: length };
}

export function decimal(precision: number, scale: number): SqlType {
  return { id: 'decimal', precision, scale };
}

export function isIntegral(t: SqlType): boolean {
  return t.id === 'tinyint' || t.id === 'smallint' || t.id === 'integer' || t.id === 'bigint';
}

export function isNumeric(t: SqlType): boolean {
  return isIntegral(t) || t.id === 'real' || t.id === 'double' || t.id === 'decimal';
}

export function isInterval(t: SqlType): boolean {
  return t.id === 'interval day to second' || t.id === 'interval year to month';
}

export function isOrderable(t: SqlType): boolean {
  return t.id !== 'unknown';
}

export function typeEquals(a: SqlType, b: SqlType): boolean {
  return a.id === b.id && a.precision === b.precision && a.scale === b.scale;
}

/** The type's SQL text as Trino prints it in `columns[].type` and DESCRIBE. */
export function typeDisplayName(t: SqlType): string {
  switch (t.id) {
    case 'decimal':
      return `decimal(${t.precision},${t.scale})`;
    case 'varchar':
      return t.precision === undefined ? 'varchar' : `varchar(${t.precision})`;
    case 'timestamp':
      return 'timestamp(3)';
    default:
      return t.id;
  }
}

export interface TypeSignatureArgument {
  kind: 'TYPE' | 'NAMED_TYPE' | 'LONG';
  value: number | TypeSignature;
}

export interface TypeSignature {
  rawType: string;
  arguments: TypeSignatureArgument[];
}

/** Trino's `typeSignature` for a column descriptor. */
export function typeSignature(t: SqlType): TypeSignature {
  switch (t.id) {
    case 'decimal':
      return {
        rawType: 'decimal',
        arguments: [
          { kind: 'LONG', value: t.precision ?? MAX_DECIMAL_PRECISION },
          { kind: 'LONG', value: t.scale ?? 0 },
        ],
      };
    case 'varchar':
      return { rawType: 'varchar', arguments: [{ kind: 'LONG', value: t.precision ?? UNBOUNDED_VARCHAR_LENGTH }] };
    case 'timestamp':
      return { rawType: 'timestamp', arguments: [{ kind: 'LONG', value: 3 }] };
    default:
      return { rawType: t.id, arguments: [] };
  }
}
