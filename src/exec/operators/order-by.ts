// ORDER BY (and top-N when a limit is given): gathers its input, sorts row indices by the keys,
// and emits the rows in order. Trino's default: NULLs last in both directions unless stated.

import type { Page } from '../../data/page.js';
import type { SqlType } from '../../data/types.js';
import type { SortKey } from '../../sql/plan.js';
import { isStringColumn, nullFlags, numericValues, stringValues } from '../column-readers.js';
import { concatPages } from '../concat.js';
import { gatherColumn } from '../gather.js';
import { emptyOperatorStats, nowNanos, recordInput, recordOutput, type OperatorStats } from '../metrics.js';
import type { Operator, PageSink } from './operator.js';

export class OrderByOperator implements Operator {
  readonly stats: OperatorStats;
  private readonly pages: Page[] = [];
  private rows = 0;
  private bytes = 0;

  constructor(
    operatorId: number,
    private readonly keys: readonly SortKey[],
    private readonly limit: number | null,
    private readonly types: readonly SqlType[],
    private readonly next: PageSink,
  ) {
    this.stats = emptyOperatorStats(operatorId, limit === null ? 'OrderByOperator' : 'TopNOperator');
  }

  addInput(page: Page): void {
    recordInput(this.stats, page);
    this.pages.push(page);
    this.rows += page.length;
    this.bytes = this.stats.inputBytes;
    this.stats.peakMemoryBytes = Math.max(this.stats.peakMemoryBytes, this.bytes);
  }

  finish(): void {
    const start = nowNanos();
    this.stats.finishCalls++;
    if (this.rows === 0) return;
    const all = concatPages(this.pages, this.types);
    this.pages.length = 0;
    const n = all.length;
    const perm = sortedIndices(all, this.keys);
    const count = this.limit === null ? n : Math.min(n, this.limit);
    const out: Page = { length: count, columns: all.columns.map((c) => gatherColumn(c, perm, count)) };
    this.stats.finishNanos += nowNanos() - start;
    recordOutput(this.stats, out);
    this.next(out);
  }

  isDone(): boolean {
    return false;
  }
}

export function sortedIndices(page: Page, keys: readonly SortKey[]): Int32Array {
  const n = page.length;
  const readers = keys.map((k) => {
    const col = page.columns[k.index];
    const strings = isStringColumn(col);
    return {
      nums: strings ? null : numericValues(col),
      strs: strings ? stringValues(col) : null,
      nulls: nullFlags(col),
      dir: k.ascending ? 1 : -1,
      nullOrder: k.nullsFirst ? -1 : 1,
    };
  });
  const perm = new Int32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  perm.sort((a, b) => {
    for (const r of readers) {
      const an = r.nulls !== null && r.nulls[a] === 1;
      const bn = r.nulls !== null && r.nulls[b] === 1;
      if (an || bn) {
        if (an && bn) continue;
        return an ? r.nullOrder : -r.nullOrder;
      }
      let c: number;
      if (r.nums) {
        const x = r.nums[a];
        const y = r.nums[b];
        // NaN sorts above every other double, as in Trino.
        c = x < y ? -1 : x > y ? 1 : x === y ? 0 : Number.isNaN(x) ? (Number.isNaN(y) ? 0 : 1) : -1;
      } else {
        const x = (r.strs as string[])[a];
        const y = (r.strs as string[])[b];
        c = x < y ? -1 : x > y ? 1 : 0;
      }
      if (c !== 0) return c * r.dir;
    }
    return a - b;
  });
  return perm;
}
