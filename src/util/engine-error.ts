// The engine's error catalog: Trino's error names, codes and types, so clients see what Trino
// clients expect. Parse and analysis errors carry a 1-based location and Trino's `line L:C: ` prefix.

export type ErrorType = 'USER_ERROR' | 'INTERNAL_ERROR' | 'INSUFFICIENT_RESOURCES' | 'EXTERNAL';

export const ERROR_CODES = {
  GENERIC_USER_ERROR: { code: 0, type: 'USER_ERROR' },
  SYNTAX_ERROR: { code: 1, type: 'USER_ERROR' },
  ABANDONED_QUERY: { code: 2, type: 'USER_ERROR' },
  USER_CANCELED: { code: 3, type: 'USER_ERROR' },
  PERMISSION_DENIED: { code: 4, type: 'USER_ERROR' },
  NOT_FOUND: { code: 5, type: 'USER_ERROR' },
  FUNCTION_NOT_FOUND: { code: 6, type: 'USER_ERROR' },
  INVALID_FUNCTION_ARGUMENT: { code: 7, type: 'USER_ERROR' },
  DIVISION_BY_ZERO: { code: 8, type: 'USER_ERROR' },
  INVALID_CAST_ARGUMENT: { code: 9, type: 'USER_ERROR' },
  NOT_SUPPORTED: { code: 13, type: 'USER_ERROR' },
  INVALID_SESSION_PROPERTY: { code: 14, type: 'USER_ERROR' },
  INVALID_WINDOW_FRAME: { code: 15, type: 'USER_ERROR' },
  NUMERIC_VALUE_OUT_OF_RANGE: { code: 19, type: 'USER_ERROR' },
  SUBQUERY_MULTIPLE_ROWS: { code: 28, type: 'USER_ERROR' },
  ADMINISTRATIVELY_KILLED: { code: 38, type: 'USER_ERROR' },
  CATALOG_NOT_FOUND: { code: 44, type: 'USER_ERROR' },
  SCHEMA_NOT_FOUND: { code: 45, type: 'USER_ERROR' },
  TABLE_NOT_FOUND: { code: 46, type: 'USER_ERROR' },
  COLUMN_NOT_FOUND: { code: 47, type: 'USER_ERROR' },
  AMBIGUOUS_NAME: { code: 62, type: 'USER_ERROR' },
  MISSING_CATALOG_NAME: { code: 56, type: 'USER_ERROR' },
  MISSING_SCHEMA_NAME: { code: 57, type: 'USER_ERROR' },
  TYPE_MISMATCH: { code: 58, type: 'USER_ERROR' },
  INVALID_LITERAL: { code: 59, type: 'USER_ERROR' },
  MISSING_GROUP_BY: { code: 64, type: 'USER_ERROR' },
  INVALID_COLUMN_REFERENCE: { code: 63, type: 'USER_ERROR' },
  EXPRESSION_NOT_AGGREGATE: { code: 73, type: 'USER_ERROR' },
  INVALID_ARGUMENTS: { code: 76, type: 'USER_ERROR' },
  INVALID_PARAMETER_USAGE: { code: 80, type: 'USER_ERROR' },
  // Trino's StandardErrorCode numbers for the write statements (memory catalog).
  SCHEMA_NOT_EMPTY: { code: 34, type: 'USER_ERROR' },
  TYPE_NOT_FOUND: { code: 43, type: 'USER_ERROR' },
  SCHEMA_ALREADY_EXISTS: { code: 49, type: 'USER_ERROR' },
  TABLE_ALREADY_EXISTS: { code: 50, type: 'USER_ERROR' },
  COLUMN_ALREADY_EXISTS: { code: 51, type: 'USER_ERROR' },
  INVALID_VIEW: { code: 11, type: 'USER_ERROR' },
  DUPLICATE_COLUMN_NAME: { code: 54, type: 'USER_ERROR' },
  MISSING_COLUMN_NAME: { code: 55, type: 'USER_ERROR' },
  COLUMN_TYPE_UNKNOWN: { code: 60, type: 'USER_ERROR' },
  MISMATCHED_COLUMN_ALIASES: { code: 61, type: 'USER_ERROR' },
  GENERIC_INTERNAL_ERROR: { code: 65536, type: 'INTERNAL_ERROR' },
  SERVER_SHUTTING_DOWN: { code: 65545, type: 'INTERNAL_ERROR' },
  GENERIC_INSUFFICIENT_RESOURCES: { code: 131072, type: 'INSUFFICIENT_RESOURCES' },
  EXCEEDED_GLOBAL_MEMORY_LIMIT: { code: 131073, type: 'INSUFFICIENT_RESOURCES' },
  QUERY_QUEUE_FULL: { code: 131074, type: 'INSUFFICIENT_RESOURCES' },
  EXCEEDED_TIME_LIMIT: { code: 131075, type: 'INSUFFICIENT_RESOURCES' },
  EXCEEDED_LOCAL_MEMORY_LIMIT: { code: 131079, type: 'INSUFFICIENT_RESOURCES' },
} as const satisfies Record<string, { code: number; type: ErrorType }>;

export type ErrorName = keyof typeof ERROR_CODES;

export interface SourceLocation {
  lineNumber: number;
  columnNumber: number;
}

/** A failure with a Trino error code; everything that can fail a query throws one of these. */
export class EngineError extends Error {
  readonly errorName: ErrorName;
  readonly location: SourceLocation | undefined;

  constructor(errorName: ErrorName, message: string, location?: SourceLocation) {
    super(location ? `line ${location.lineNumber}:${location.columnNumber}: ${message}` : message);
    this.errorName = errorName;
    this.location = location;
  }

  get errorCode(): number {
    return ERROR_CODES[this.errorName].code;
  }

  get errorType(): ErrorType {
    return ERROR_CODES[this.errorName].type;
  }

  /** Plain data for crossing a worker-thread boundary (class identity is lost in structured clone). */
  toJSON(): SerializedEngineError {
    return { engineError: true, errorName: this.errorName, message: this.message, location: this.location };
  }
}

export interface SerializedEngineError {
  engineError: true;
  errorName: ErrorName;
  /** The full message, location prefix included. */
  message: string;
  location?: SourceLocation;
}

/** Turns anything thrown (here or in a worker) into an EngineError, keeping codes when present. */
export function toEngineError(e: unknown): EngineError {
  if (e instanceof EngineError) return e;
  const data = e as Partial<SerializedEngineError> | null;
  if (data && typeof data === 'object' && typeof data.errorName === 'string' && data.errorName in ERROR_CODES) {
    const err = new EngineError(data.errorName as ErrorName, '', undefined);
    // Keep the original, already prefixed message.
    Object.defineProperty(err, 'message', { value: String(data.message ?? '') });
    Object.defineProperty(err, 'location', { value: data.location });
    return err;
  }
  const message = e instanceof Error ? e.message : String(e);
  // A value past V8's largest string (listagg over millions of rows, say) is the query's size, not a fault.
  if (e instanceof RangeError && /Invalid string length/u.test(message)) {
    return new EngineError('GENERIC_INSUFFICIENT_RESOURCES', 'A string value exceeds the largest supported length (about 512 million characters)');
  }
  return new EngineError('GENERIC_INTERNAL_ERROR', message || 'Internal error');
}
