// How dbgen turns a scale factor into table sizes. Below 1 it scales each base count by
// floor(1000 * sf) / 1000 (at least one row) and otherwise behaves as scale 1; from 1 on it
// truncates the scale factor to an integer (dbgen -s 1.5 generates scale 1).

export interface TpchScale {
  readonly scaleFactor: number;
  /** dbgen's integer `scale` (1 for scale factors below 1). */
  readonly scale: number;
  readonly parts: number;
  readonly suppliers: number;
  readonly customers: number;
  readonly orders: number;
  /** Order and part key streams switch to dbgen's 64-bit generator from scale 30000 on. */
  readonly use64BitKeys: boolean;
  /** Clerks are numbered 1..clerks. */
  readonly clerks: number;
}

const PART_BASE = 200_000;
const SUPPLIER_BASE = 10_000;
const CUSTOMER_BASE = 150_000;
const ORDER_BASE = 1_500_000;
const CLERK_BASE = 1000;

const cache = new Map<number, TpchScale>();

export function tpchScale(scaleFactor: number): TpchScale {
  if (!(scaleFactor > 0) || !Number.isFinite(scaleFactor)) {
    throw new RangeError(`TPC-H scale factor must be a positive number, got ${scaleFactor}`);
  }
  const cached = cache.get(scaleFactor);
  if (cached) return cached;
  let scale: number;
  let base: (n: number) => number;
  if (scaleFactor < 1) {
    const intScale = Math.trunc(1000 * scaleFactor);
    scale = 1;
    base = (n) => Math.max(1, Math.floor((intScale * n) / 1000));
  } else {
    scale = Math.trunc(scaleFactor);
    base = (n) => n;
  }
  const result: TpchScale = {
    scaleFactor,
    scale,
    parts: base(PART_BASE) * scale,
    suppliers: base(SUPPLIER_BASE) * scale,
    customers: base(CUSTOMER_BASE) * scale,
    orders: base(ORDER_BASE) * scale,
    use64BitKeys: scale >= 30000,
    clerks: Math.max(scale * CLERK_BASE, CLERK_BASE),
  };
  cache.set(scaleFactor, result);
  return result;
}
