// Evaluating a constant expression once (VALUES rows, constant folding): the same compiled kernel
// over a one-row page without columns, so constants mean exactly what they mean at run time.

import { readValue } from '../../data/page.js';
import type { Expr, LiteralValue } from '../../sql/ir.js';
import { compileProjection } from './compile.js';

export function evaluateConstant(e: Expr): LiteralValue {
  if (e.kind === 'literal') return e.value;
  const [column] = compileProjection([e], [])([], null, 1);
  return readValue(column, 0);
}
