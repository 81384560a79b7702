// A seeded random source (mulberry32): the same seed gives the same queries on every machine.

export class Rng {
  private s: number;

  constructor(seed: number) {
    this.s = seed | 0;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    this.s = (this.s + 0x6d2b79f5) | 0;
    let t = Math.imul(this.s ^ (this.s >>> 15), 1 | this.s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) % n;
  }

  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.int(1_000_000) < p * 1_000_000;
  }

  pick<T>(a: readonly T[]): T {
    return a[this.int(a.length)];
  }

  /** One of the options, with probability proportional to its weight. */
  weighted<T>(options: readonly (readonly [number, T])[]): T {
    const total = options.reduce((s, [w]) => s + w, 0);
    let r = this.int(Math.max(1, Math.round(total * 1000))) / 1000;
    for (const [w, v] of options) {
      if (r < w) return v;
      r -= w;
    }
    return options[options.length - 1][1];
  }

  /** Up to n distinct elements in random order. */
  sample<T>(a: readonly T[], n: number): T[] {
    const copy = [...a];
    const out: T[] = [];
    while (out.length < n && copy.length) out.push(copy.splice(this.int(copy.length), 1)[0]);
    return out;
  }
}
