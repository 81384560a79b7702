// The operator contract: push-based, a page at a time. Each operator owns its OperatorStats.

import type { Page } from '../../data/page.js';
import type { OperatorStats } from '../metrics.js';

export type PageSink = (page: Page) => void;

export interface Operator {
  readonly stats: OperatorStats;
  addInput(page: Page): void;
  /** No more input: blocking operators produce their output now. */
  finish(): void;
  /** True once the operator wants no more input (e.g. a satisfied LIMIT). */
  isDone(): boolean;
}
