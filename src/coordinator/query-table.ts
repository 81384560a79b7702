// The coordinator's queries by id, in one array indexed by the counter inside each id, not in a
// Map. Under a stream of small statements a Map of queries is rewritten (rehashed) every few
// hundred inserts and deletes; V8 links each replaced table to its successor and keeps its
// entries, and once one such table has reached the old generation, every young table and query it
// points to survives scavenges until the next major GC: each scavenge then promoted 1–1.5 MB of
// finished queries (`--trace-gc-nvp`), old space filled in a second, and major GCs came back to
// back. Here a query leaves its slot cleared; the array is allocated once and never replaced.
// An id whose slot is taken (more queries alive than slots) goes to a small Map on the side.

/** Slot of an id in the array, or -1 when the id has no usable counter. */
export type SlotOf = (id: string) => number;

export class QueryTable<T extends { readonly id: string }> {
  private readonly slots: (T | undefined)[];
  private readonly overflow = new Map<string, T>();
  private inSlots = 0;

  constructor(
    capacity: number,
    private readonly slotOf: SlotOf,
  ) {
    this.slots = new Array<T | undefined>(capacity).fill(undefined);
  }

  get size(): number {
    return this.inSlots + this.overflow.size;
  }

  get(id: string): T | undefined {
    const slot = this.slotOf(id);
    if (slot >= 0 && slot < this.slots.length) {
      const item = this.slots[slot];
      if (item !== undefined && item.id === id) return item;
    }
    return this.overflow.size === 0 ? undefined : this.overflow.get(id);
  }

  set(item: T): void {
    const slot = this.slotOf(item.id);
    if (slot >= 0 && slot < this.slots.length) {
      const current = this.slots[slot];
      if (current === undefined || current.id === item.id) {
        if (current === undefined) this.inSlots++;
        this.slots[slot] = item;
        return;
      }
    }
    this.overflow.set(item.id, item);
  }

  /** Removes `item` if it is the one stored under its id. */
  delete(item: T): void {
    const slot = this.slotOf(item.id);
    if (slot >= 0 && slot < this.slots.length && this.slots[slot] === item) {
      this.slots[slot] = undefined;
      this.inSlots--;
    } else if (this.overflow.get(item.id) === item) this.overflow.delete(item.id);
  }

  /** Every stored item (slots in index order, then the overflow). */
  values(): T[] {
    const out: T[] = [];
    if (this.inSlots > 0) for (const item of this.slots) if (item !== undefined) out.push(item);
    for (const item of this.overflow.values()) out.push(item);
    return out;
  }
}
