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

/** A downstream operator that can evaluate an upstream filter's predicate itself, in its own loop. */
export interface FilterSink {
  /**
   * Takes the rows of `page` that `predicate` keeps, as `projections` of them; returns the rows
   * kept and the nanoseconds spent, or null with nothing done.
   */
  addFiltered(page: Page, predicate: Expr, projections: readonly Expr[], shapes: readonly ColumnShape[]): { kept: number; nanos: number } | null;
}

export function isFilterSink(op: Operator): op is Operator & FilterSink {
  return typeof (op as Partial<FilterSink>).addFiltered === 'function';
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
