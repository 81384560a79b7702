// One driver's share of a hash-partitioned input: the rows whose key values hash to partition
// `index` of `count`. Several drivers read the same pages, each keeping its own partition, so a
// final aggregation splits into disjoint groups that run in parallel (see partitioned-stage.ts).

import type { Page } from '../../data/page.js';
import { nullFlags } from '../column-readers.js';
import { gatherColumn } from '../gather.js';
import { valueHashes } from '../group-by-hash.js';
import { emptyOperatorStats, nowNanos, recordInput, recordOutput, type OperatorStats } from '../metrics.js';
import type { Operator, PageSink } from './operator.js';

const NULL_HASH = 0x5bd1e995;

/**
 * The rows of `page` whose `keys` values hash to partition `index` of `count`, into `sel`; returns
 * how many. Column at a time: each key's value hashes folded into one hash per row, then mixed.
 */
export function selectPartition(page: Page, keys: readonly number[], count: number, index: number, sel: Int32Array): number {
  const n = page.length;
  const h = new Int32Array(n).fill(0x2545f491);
  for (const k of keys) {
    const col = page.columns[k];
    const v = valueHashes(col, null, n);
    const nulls = nullFlags(col);
    if (nulls === null) for (let r = 0; r < n; r++) h[r] = Math.imul(h[r] ^ v[r], 0x01000193);
    else for (let r = 0; r < n; r++) h[r] = Math.imul(h[r] ^ (nulls[r] === 1 ? NULL_HASH : v[r]), 0x01000193);
  }
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
    const start = nowNanos();
    recordInput(this.stats, page);
    const sel = new Int32Array(page.length);
    const kept = selectPartition(page, this.keys, this.count, this.index, sel);
    this.stats.addInputNanos += nowNanos() - start;
    if (kept === 0) return;
    const out = kept === page.length ? page : { length: kept, columns: page.columns.map((c) => gatherColumn(c, sel, kept)) };
    recordOutput(this.stats, out);
    this.next(out);
  }

  finish(): void {
    this.stats.finishCalls++;
  }

  isDone(): boolean {
    return false;
  }
}
