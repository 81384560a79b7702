// The syntax tree the parser emits: the shape the analyzer reads (analyze.ts, bind.ts), which is
// node-sql-parser's postgresql tree this engine started with. Every node is also an AstNode.

export interface Loc {
  readonly start: { readonly offset: number; readonly line: number; readonly column: number };
  readonly end: { readonly offset: number; readonly line: number; readonly column: number };
}

export interface Located {
  loc?: Loc;
  /** Written in parentheses (for error messages only). */
  parentheses?: boolean;
}

export interface Identifier {
  type: 'default';
  value: string;
}

export interface ColumnRef extends Located {
  type: 'column_ref';
  /** `schema.table.column`: the schema part. */
  schema?: string | null;
  /** A plain string for `t.c`; an Identifier for `t.*`. */
  table: string | Identifier | null;
  column: { expr: Identifier } | '*';
}

export interface NumberLiteral extends Located {
  /** Integers within 2^53 as numbers, decimals as their text; `bigint` holds larger integers and doubles as text. */
  type: 'number' | 'bigint';
  value: number | string;
}

export interface StringLiteral extends Located {
  type: 'single_quote_string';
  value: string;
  /** LIKE's ESCAPE, on the pattern. */
  escape?: { type: 'ESCAPE'; value: Expression };
}

export interface TypedLiteral extends Located {
  type: 'date' | 'timestamp' | 'time';
  value: string;
}

export interface BoolLiteral extends Located {
  type: 'bool';
  value: boolean;
}

export interface NullLiteral extends Located {
  type: 'null';
  value: null;
}

export interface IntervalLiteral extends Located {
  type: 'interval';
  expr: StringLiteral;
  unit: string;
}

/** A keyword-valued node: LIMIT ALL, frame units and bounds, POSITION's IN. */
export interface Origin extends Located {
  type: 'origin';
  value: string;
}

export interface Star {
  type: 'star';
  value: '*';
}

export interface BinaryExpr extends Located {
  type: 'binary_expr';
  /** Upper case: AND, OR, =, <>, IN, NOT IN, LIKE, BETWEEN, IS, IS NOT, IS DISTINCT FROM, ||, +, … */
  operator: string;
  left: Expression;
  right: Expression;
}

export interface UnaryExpr extends Located {
  type: 'unary_expr';
  operator: 'NOT' | 'NOT EXISTS' | '-' | '+';
  expr: Expression;
}

export interface ExprList extends Located {
  type: 'expr_list';
  value: Expression[];
  distinct?: 'DISTINCT' | null;
}

export interface CaseExpr extends Located {
  type: 'case';
  expr: Expression | null;
  args: ({ type: 'when'; cond: Expression; result: Expression } | { type: 'else'; result: Expression })[];
}

export interface CastTarget {
  dataType: string;
  length?: number;
  scale?: number;
  parentheses?: boolean;
  suffix?: never[];
}

export interface CastExpr extends Located {
  type: 'cast';
  keyword: 'cast';
  symbol: 'as';
  expr: Expression;
  target: CastTarget[];
}

export interface ExtractExpr extends Located {
  type: 'extract';
  args: { field: string; cast_type: null; source: Expression };
}

export interface WindowSpec {
  name: null;
  partitionby: { type: 'expr'; expr: Expression }[] | null;
  orderby: OrderItem[] | null;
  /** `BETWEEN`: a binary_expr of the unit (Origin) and the two bounds; one bound: `{ type: unit, expr: bound }`. */
  window_frame_clause: BinaryExpr | { type: string; expr: Expression } | null;
}

export interface Over {
  type: 'window';
  /** A window name (WINDOW clause reference) is a string. */
  as_window_specification: { window_specification: WindowSpec; parentheses: true } | string;
}

export interface FunctionName {
  name: (Identifier | Origin)[];
}

export interface FunctionCall extends Located {
  type: 'function';
  name: FunctionName;
  args: ExprList;
  over?: Over | null;
  /** DISTINCT inside an aggregate's parentheses. */
  filter?: { where: Expression } | null;
}

export interface AggregateCall extends Located {
  type: 'aggr_func';
  /** COUNT, SUM, AVG, MIN or MAX. */
  name: string;
  args: { expr: Expression | Star; distinct?: 'DISTINCT' | null };
  over: Over | null;
  filter?: { where: Expression } | null;
}

export interface WindowFunctionCall extends Located {
  type: 'window_func';
  name: string;
  args?: ExprList;
  over: Over;
}

/** A subquery in an expression or FROM. */
export interface Subquery extends Located {
  type?: undefined;
  ast: SelectNode;
}

export type Expression =
  | ColumnRef
  | NumberLiteral
  | StringLiteral
  | TypedLiteral
  | BoolLiteral
  | NullLiteral
  | IntervalLiteral
  | Origin
  | BinaryExpr
  | UnaryExpr
  | ExprList
  | CaseExpr
  | CastExpr
  | ExtractExpr
  | FunctionCall
  | AggregateCall
  | WindowFunctionCall
  | Subquery;

export interface OrderItem {
  expr: Expression;
  type: 'ASC' | 'DESC' | null;
  nulls: 'NULLS FIRST' | 'NULLS LAST' | null;
}

export interface SelectItem {
  type?: 'expr';
  expr: Expression;
  as: string | null;
}

export interface TableRef extends Located {
  db: string | null;
  schema?: string;
  table: string;
  /** Alias, with its column list as `t(a, b)`. */
  as: string | null;
  join?: string;
  on?: Expression | null;
  using?: Identifier[];
}

export interface DerivedRef extends Located {
  expr: Subquery | { type: 'values'; values: ExprList[]; parentheses: true };
  as: string | null;
  join?: string;
  on?: Expression | null;
  using?: Identifier[];
}

export type FromItem = TableRef | DerivedRef;

export interface WithItem {
  name: Identifier;
  stmt: SelectNode;
  columns: ColumnRef[] | null;
  recursive?: boolean;
}

export interface Limit {
  /** '' for LIMIT n; 'offset' for [LIMIT n] OFFSET m as [n, m] or [m]. */
  seperator: '' | 'offset';
  value: (NumberLiteral | Origin)[];
}

export interface SelectNode {
  type: 'select';
  with: WithItem[] | null;
  options: null;
  distinct: { type: 'DISTINCT' | null };
  columns: SelectItem[];
  into: { position: null };
  from: FromItem[] | null;
  where: Expression | null;
  groupby: { columns: Expression[] } | null;
  having: Expression | null;
  orderby: OrderItem[] | null;
  limit: Limit;
  window: unknown[] | null;
  /** The next branch of a set operation, and the operator joining it (`union all`, `except`, …). */
  _next?: SelectNode;
  set_op?: string;
}
