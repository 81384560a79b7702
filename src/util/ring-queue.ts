// A first-in first-out queue in a ring over one array that is replaced only when it is full, and
// then cleared. Why not an array with a head index and an occasional splice: every time such an
// array grows or is spliced V8 gives it a new backing store, and the replaced one keeps
// pointing at what it held. Once a replaced store has reached the old generation it is garbage
// that scavenges cannot see, and every young object it points at survives until the next major
// GC: the query history (a push and a shift per statement) promoted ~100 finished queries on each
// replacement under a stream of `SELECT 1`.

export class RingQueue<T> {
  private items: (T | undefined)[];
  private head = 0;
  private count = 0;

  constructor(initialCapacity = 64) {
    this.items = new Array<T | undefined>(Math.max(2, initialCapacity)).fill(undefined);
  }

  get length(): number {
    return this.count;
  }

  push(item: T): void {
    if (this.count === this.items.length) this.grow();
    this.items[(this.head + this.count) % this.items.length] = item;
    this.count++;
  }

  /** The oldest item, or undefined when empty. */
  peek(): T | undefined {
    return this.count === 0 ? undefined : this.items[this.head];
  }

  /** Removes and returns the oldest item (undefined when empty); its slot is cleared. */
  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) % this.items.length;
    this.count--;
    return item;
  }

  private grow(): void {
    const old = this.items;
    const next = new Array<T | undefined>(old.length * 2).fill(undefined);
    for (let i = 0; i < this.count; i++) next[i] = old[(this.head + i) % old.length];
    // The replaced array may already be in the old generation: clear it so it holds nothing young.
    old.fill(undefined);
    this.items = next;
    this.head = 0;
  }
}
