// GroupId (GROUPING SETS, ROLLUP, CUBE): each input row comes out once per grouping set, with the
// group columns outside that set NULL and the set's number appended, so one aggregation grouped by
// (group columns, set number) computes every grouping set from a single scan.

import type { Column, Page } from '../../data/page.js';
import { BIGINT, type SqlType } from '../../data/types.js';
import { columnFromNumbers } from '../build-columns.js';
import { nullColumn } from '../gather.js';
import { emptyOperatorStats, recordInput, recordOutput, type OperatorStats } from '../metrics.js';
import type { Operator, PageSink } from './operator.js';

export class GroupIdOperator implements Operator {
  readonly stats: OperatorStats;

  constructor(
    operatorId: number,
    private readonly groupCount: number,
    private readonly sets: readonly (readonly number[])[],
    private readonly types: readonly SqlType[],
    private readonly next: PageSink,
  ) {
    this.stats = emptyOperatorStats(operatorId, 'GroupIdOperator');
  }

  addInput(page: Page): void {
    recordInput(this.stats, page);
    const n = page.length;
    this.sets.forEach((set, id) => {
      const keep = new Set(set);
      const columns: Column[] = page.columns.map((c, i) => (i < this.groupCount && !keep.has(i) ? nullColumn(this.types[i], n) : c));
      columns.push(columnFromNumbers(BIGINT, new Float64Array(n).fill(id), null, n));
      const out: Page = { length: n, columns };
      recordOutput(this.stats, out);
      this.next(out);
    });
  }

  finish(): void {
    this.stats.finishCalls++;
  }

  isDone(): boolean {
    return false;
  }
}
