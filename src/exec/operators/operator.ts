// The operator contract: push-based, a page at a time. Each operator owns its OperatorStats.

import type { Page } from '../../data/page.js';
import type { Expr } from '../../sql/ir.js';
import type { ColumnShape } from '../compile/emit.js';
import { nowNanos, recordInput, recordOutput, type OperatorStats } from '../metrics.js';

export type PageSink = (page: Page) => void;

export interface Operator {
  readonly stats: OperatorStats;
  addInput(page: Page): void;
  /** No more input: blocking operators produce their output now. */
  finish(): void;
  /** True once the operator wants no more input (e.g. a satisfied LIMIT). */
  isDone(): boolean;
}

/**
 * An operator that can take a filter's selected rows without the filtered page being built: the
 * rows `sel` selects (all `count` when null) of `page`, seen through `projections`. Returns the
 * nanoseconds spent (its own and downstream), or -1 when it cannot (nothing done).
 */
export interface SelectionSink {
  addSelected(page: Page, sel: Int32Array | null, count: number, projections: readonly Expr[], shapes: readonly ColumnShape[]): number;
}

export function isSelectionSink(op: Operator): op is Operator & SelectionSink {
  return typeof (op as Partial<SelectionSink>).addSelected === 'function';
}

/** A streaming operator's addInput: times `process` on the page, records rows in and out, passes a non-empty result on. */
export function streamPage(stats: OperatorStats, page: Page, process: (page: Page) => Page | null, next: PageSink): void {
  const start = nowNanos();
  recordInput(stats, page);
  const out = process(page);
  stats.addInputNanos += nowNanos() - start;
  if (out && out.length > 0) {
    recordOutput(stats, out);
    next(out);
  }
}
