// The server-wide memory limit: what every running execution holds (each measured as its own
// per-query limit measures it), summed when one of them has grown, against --query-max-total-memory.
// The query whose growth takes the sum over the limit fails; the others go on.

import { DenseSet, type DenseSetMember } from '../util/dense-set.js';
import { EngineError } from '../util/engine-error.js';
import { formatDataSize } from '../util/wire-format.js';

export interface MemoryHolder extends DenseSetMember {
  /** Bytes held now. */
  memoryReservation(): number;
}

export class MemoryPool {
  private readonly holders = new DenseSet<MemoryHolder>();

  constructor(readonly limitBytes: number) {}

  /** An execution that has started: its memory counts from now on. */
  add(holder: MemoryHolder): void {
    if (this.limitBytes !== Infinity) this.holders.add(holder);
  }

  /** An execution that has ended: it holds nothing any more. */
  remove(holder: MemoryHolder): void {
    this.holders.delete(holder);
  }

  /** Bytes every running execution holds now. */
  reservedBytes(): number {
    let bytes = 0;
    for (let i = 0; i < this.holders.size; i++) bytes += this.holders.at(i).memoryReservation();
    return bytes;
  }

  /** Fails the caller (an execution that has just grown to `ownBytes`) when everything held is over the limit. */
  check(ownBytes: number): void {
    if (this.limitBytes === Infinity) return;
    const total = this.reservedBytes();
    if (total > this.limitBytes) {
      throw new EngineError(
        'EXCEEDED_GLOBAL_MEMORY_LIMIT',
        `Query exceeded distributed total memory limit of ${formatDataSize(this.limitBytes)} [Allocated by all running queries: ${formatDataSize(total)}, by this query: ${formatDataSize(ownBytes)}]`,
      );
    }
  }
}
