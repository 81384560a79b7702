// A set of objects that each carry their own position in it, kept in one dense array with
// swap-remove: add, delete and iteration without a hash table. A V8 Set or Map under churn (an
// insert and a delete per statement) is rehashed every few dozen operations, and V8 links each
// replaced table to its successor with its entries; once one replaced table has reached the old
// generation, every younger table and the objects they hold survive scavenges until the next
// major GC (see coordinator/query-table.ts). Here a removed member's slot is overwritten or
// cleared, and the array only grows.

/** A member's position in the one DenseSet it belongs to; -1 when in none. */
export interface DenseSetMember {
  denseSlot: number;
}

export class DenseSet<T extends DenseSetMember> {
  private readonly items: (T | undefined)[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  has(item: T): boolean {
    return item.denseSlot >= 0 && item.denseSlot < this.count && this.items[item.denseSlot] === item;
  }

  add(item: T): void {
    if (this.has(item)) return;
    item.denseSlot = this.count;
    this.items[this.count++] = item;
  }

  delete(item: T): boolean {
    if (!this.has(item)) return false;
    const slot = item.denseSlot;
    const last = this.items[--this.count]!;
    this.items[slot] = last;
    last.denseSlot = slot;
    this.items[this.count] = undefined;
    item.denseSlot = -1;
    return true;
  }

  /** The member at position `i` (0 ≤ i < size): a walk without the copy snapshot() makes. */
  at(i: number): T {
    return this.items[i]!;
  }

  /** The members now, as a new array (safe to delete from the set while walking it). */
  snapshot(): T[] {
    return this.items.slice(0, this.count) as T[];
  }
}
