// LIMIT/OFFSET: skips then passes rows until the count is reached, then asks for no more input.

import type { Page } from '../../data/page.js';
import { sliceColumn } from '../gather.js';
import { emptyOperatorStats, recordInput, recordOutput, type OperatorStats } from '../metrics.js';
import type { Operator, PageSink } from './operator.js';

export class LimitOperator implements Operator {
  readonly stats: OperatorStats;
  private skipped = 0;
  private passed = 0;

  constructor(
    operatorId: number,
    private readonly count: number | null,
    private readonly offset: number,
    private readonly next: PageSink,
  ) {
    this.stats = emptyOperatorStats(operatorId, 'LimitOperator');
  }

  addInput(page: Page): void {
    recordInput(this.stats, page);
    if (this.isDone()) return;
    let start = 0;
    if (this.skipped < this.offset) {
      start = Math.min(page.length, this.offset - this.skipped);
      this.skipped += start;
    }
    let take = page.length - start;
    if (this.count !== null) take = Math.min(take, this.count - this.passed);
    if (take <= 0) return;
    this.passed += take;
    const out = start === 0 && take === page.length ? page : { length: take, columns: page.columns.map((c) => sliceColumn(c, start, take)) };
    recordOutput(this.stats, out);
    this.next(out);
  }

  finish(): void {
    this.stats.finishCalls++;
  }

  isDone(): boolean {
    return this.count !== null && this.passed >= this.count;
  }
}
