// dbgen's closed-form columns: sparse order keys, part retail prices, and which suppliers supply
// a part. Shared by the generators that need them (lineitem needs all three).

import { tpchScale } from './scale.js';

/** Order index (1-based) → order key: only the first 8 of every 32 keys are used. */
export function orderKey(orderIndex: number): number {
  return Math.floor(orderIndex / 8) * 32 + (orderIndex % 8);
}

/** A part's retail price in cents: 90000 + ((key / 10) mod 20001) + 100 * (key mod 1000). */
export function partPriceCents(partKey: number): number {
  return 90000 + (Math.floor(partKey / 10) % 20001) + (partKey % 1000) * 100;
}

const SUPPLIERS_PER_PART = 4;

/** The key of a part's n-th supplier (n in 0..3) among `suppliers` suppliers. */
export function partSupplier(partKey: number, n: number, suppliers: number): number {
  return (
    ((partKey + n * (Math.floor(suppliers / SUPPLIERS_PER_PART) + Math.floor((partKey - 1) / suppliers))) % suppliers) + 1
  );
}

export function partSupplierAt(partKey: number, n: number, scaleFactor: number): number {
  return partSupplier(partKey, n, tpchScale(scaleFactor).suppliers);
}
