// The analyzer reads the parser's tree (typed in syntax/nodes.ts) through this one loose shape and
// validates every field it uses, so nothing untyped leaks past analysis.

/* eslint-disable @typescript-eslint/no-explicit-any */
export interface AstNode {
  type?: string;
  loc?: { start: { line: number; column: number; offset: number } };
  [key: string]: any;
}
