// One driver's share of a hash-partitioned input: the rows whose key values hash to partition
// `index` of `count`. Several drivers read the same pages, each keeping its own partition, so a
// final aggregation splits into disjoint groups that run in parallel (see partitioned-stage.ts).

import type { Page } from '../../data/page.js';
import { gatherColumn } from '../gather.js';
import { keyRowHashes } from '../group-by-hash.js';
import { emptyOperatorStats, type OperatorStats } from '../metrics.js';
import { streamPage, type Operator, type PageSink } from './operator.js';

/**
 * The rows of `page` whose `keys` values hash to partition `index` of `count`, into `sel`; returns
 * how many. The row hashes are the grouping's own (keyRowHashes), mixed once more.
 */
export function selectPartition(page: Page, keys: readonly number[], count: number, index: number, sel: Int32Array): number {
  const n = page.length;
  const h = keyRowHashes(keys.map((k) => page.columns[k]), keys.map(() => null), n);
  let kept = 0;
  for (let r = 0; r < n; r++) {
    // Finish the mix: the partition must depend on every bit of every key.
    let x = h[r];
    x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
    x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
    // The top 16 bits scaled to [0, count) in integers (a modulo of an unsigned 32-bit value is a
    // float one), and the row kept without a branch: half the rows go elsewhere, at random.
    const other = ((((x ^ (x >>> 16)) >>> 16) * count) >>> 16) ^ index;
    sel[kept] = r;
    kept += ((other | -other) >>> 31) ^ 1;
  }
  return kept;
}

export class HashPartitionOperator implements Operator {
  readonly stats: OperatorStats;

  constructor(
    operatorId: number,
    private readonly keys: readonly number[],
    private readonly count: number,
    private readonly index: number,
    private readonly next: PageSink,
  ) {
    this.stats = emptyOperatorStats(operatorId, 'HashPartitionOperator');
  }

  addInput(page: Page): void {
    streamPage(this.stats, page, (p) => this.process(p), this.next);
  }

  private process(page: Page): Page | null {
    const sel = new Int32Array(page.length);
    const kept = selectPartition(page, this.keys, this.count, this.index, sel);
    if (kept === 0) return null;
    return kept === page.length ? page : { length: kept, columns: page.columns.map((c) => gatherColumn(c, sel, kept)) };
  }

  finish(): void {
    this.stats.finishCalls++;
  }

  isDone(): boolean {
    return false;
  }
}
