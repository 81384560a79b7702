// node-sql-parser's output is untyped JSON; the analyzer reads it through this one loose shape and
// validates every field it uses, so nothing untyped leaks past analysis.

/* eslint-disable @typescript-eslint/no-explicit-any */
export interface AstNode {
  type?: string;
  loc?: { start: { line: number; column: number; offset: number } };
  [key: string]: any;
}
