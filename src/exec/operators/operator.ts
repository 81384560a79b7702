// The operator contract: push-based, a page at a time. Each operator owns its OperatorStats.

import type { Page } from '../../data/page.js';
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
