// dbgen's random number streams: one Park–Miller ("minimal standard", a = 16807, m = 2^31 - 1)
// generator per column, each consuming a fixed number of seeds per row. Because the budget per row
// is fixed, a stream can jump to any row with modular exponentiation (dbgen's NextRand/skip-ahead),
// which is what lets every split be generated on its own.

const MODULUS = 2147483647;
const MULTIPLIER = 16807;
const TWO_31 = 2147483648;

/** (a * b) mod (2^31 - 1) for a, b in [0, 2^31 - 1), exact in doubles (no intermediate above 2^48). */
export function mulMod(a: number, b: number): number {
  const hi = Math.floor(b / 65536);
  const lo = b - hi * 65536;
  return (((a * hi) % MODULUS) * 65536 + a * lo) % MODULUS;
}

/** One Park–Miller step: seed * 16807 mod (2^31 - 1), using 2^31 ≡ 1 (mod m) instead of a slow fmod. */
export function nextSeed(seed: number): number {
  const p = seed * MULTIPLIER;
  const hi = Math.floor(p / TWO_31);
  let r = hi + (p - hi * TWO_31);
  if (r >= MODULUS) r -= MODULUS;
  return r;
}

/** seed advanced by `count` steps (count may exceed 2^32; it must stay below 2^53). */
export function skipSeed(seed: number, count: number): number {
  let multiplier = MULTIPLIER;
  let s = seed;
  let n = count;
  while (n > 0) {
    if (n % 2 !== 0) s = mulMod(multiplier, s);
    n = Math.floor(n / 2);
    multiplier = mulMod(multiplier, multiplier);
  }
  return s;
}

/**
 * A dbgen random stream: `perRow` seeds are reserved for every row; `rowFinished` skips what the
 * row did not use, `advanceRows` jumps over whole rows.
 */
export class RandomStream {
  seed: number;
  usage = 0;
  readonly perRow: number;
  /** 16807^k mod m for k = 0..perRow, so finishing a row is one multiplication. */
  private readonly skipPowers: Float64Array | null;

  constructor(seed: number, perRow: number) {
    this.seed = seed;
    this.perRow = perRow;
    if (perRow <= 4096) {
      const powers = new Float64Array(perRow + 1);
      powers[0] = 1;
      for (let k = 1; k <= perRow; k++) powers[k] = nextSeed(powers[k - 1]);
      this.skipPowers = powers;
    } else {
      this.skipPowers = null;
    }
  }

  /** A uniform integer in [low, high], with dbgen's arithmetic (int32 range overflow included). */
  nextInt(low: number, high: number): number {
    const seed = nextSeed(this.seed);
    this.seed = seed;
    this.usage++;
    const range = (high - low + 1) | 0;
    return (low + (((seed / MODULUS) * range) | 0)) | 0;
  }

  rowFinished(): void {
    const left = this.perRow - this.usage;
    if (left > 0) {
      this.seed = this.skipPowers !== null ? mulMod(this.skipPowers[left], this.seed) : skipSeed(this.seed, left);
    }
    this.usage = 0;
  }

  advanceRows(rows: number): void {
    if (this.usage !== 0) this.rowFinished();
    if (rows > 0) this.seed = skipSeed(this.seed, this.perRow * rows);
  }
}

/** A stream with fixed bounds: the common case of a column drawn from [low, high]. */
export class BoundedStream extends RandomStream {
  constructor(
    seed: number,
    private readonly low: number,
    private readonly high: number,
    perRow = 1,
  ) {
    super(seed, perRow);
  }

  next(): number {
    return this.nextInt(this.low, this.high);
  }
}

const M64 = 6364136223846793005n;
const MOD32 = 2147483647n;

/**
 * dbgen's 64-bit stream (RANDOM64), used for customer and part keys from scale factor 30000 on.
 * It steps with a 64-bit LCG, but skips ahead with the 32-bit multiplier on 64-bit wrapping
 * arithmetic, exactly as dbgen does. BigInt is fine here: it only runs at huge scale factors.
 */
export class RandomStream64 {
  private seed: bigint;
  private usage = 0;

  constructor(
    seed: number,
    private readonly low: number,
    private readonly high: number,
    private readonly perRow = 1,
  ) {
    this.seed = BigInt(seed);
  }

  next(): number {
    this.seed = BigInt.asIntN(64, this.seed * M64 + 1n);
    this.usage++;
    const abs = this.seed < 0n ? -this.seed : this.seed;
    return this.low + Number(BigInt.asIntN(64, abs) % BigInt(this.high - this.low + 1));
  }

  rowFinished(): void {
    this.skip(this.perRow - this.usage);
    this.usage = 0;
  }

  advanceRows(rows: number): void {
    if (this.usage !== 0) this.rowFinished();
    this.skip(this.perRow * rows);
  }

  private skip(count: number): void {
    let multiplier = 16807n;
    let n = count;
    while (n > 0) {
      if (n % 2 !== 0) this.seed = BigInt.asIntN(64, multiplier * this.seed) % MOD32;
      n = Math.floor(n / 2);
      multiplier = (multiplier * multiplier) % MOD32;
    }
  }
}

/** A key stream: 32-bit below scale factor 30000, 64-bit from there on (dbgen's rule). */
export interface KeyStream {
  next(): number;
  rowFinished(): void;
  advanceRows(rows: number): void;
}

export function keyStream(seed: number, low: number, high: number, perRow: number, use64: boolean): KeyStream {
  return use64 ? new RandomStream64(seed, low, high, perRow) : new BoundedStream(seed, low, high, perRow);
}
