// The random streams orders and lineitem share: both tables draw an order's date, line count and
// each line's quantity, discount, tax, part and ship date from the same seeds, which is how an
// order's status and total price agree with its lines.

import { CURRENT_DATE_EPOCH_DAY, MIN_DATE_EPOCH_DAY, TOTAL_DATE_RANGE } from './dates.js';
import { BoundedStream, keyStream, type KeyStream } from './rng.js';
import type { TpchScale } from './scale.js';

export const LINE_COUNT_MAX = 7;
export const SHIP_DATE_MAX = 121;
const RECEIPT_DATE_MAX = 30;
const ITEM_SHIP_DAYS = SHIP_DATE_MAX + RECEIPT_DATE_MAX;

/** Order dates are days since 1970-01-01, early enough that every line ships and arrives by 1998. */
export function orderDateStream(): BoundedStream {
  return new BoundedStream(1066728069, MIN_DATE_EPOCH_DAY, MIN_DATE_EPOCH_DAY + TOTAL_DATE_RANGE - ITEM_SHIP_DAYS - 1);
}

export function lineCountStream(): BoundedStream {
  return new BoundedStream(1434868289, 1, LINE_COUNT_MAX);
}

export function quantityStream(): BoundedStream {
  return new BoundedStream(209208115, 1, 50, LINE_COUNT_MAX);
}

export function discountStream(): BoundedStream {
  return new BoundedStream(554590007, 0, 10, LINE_COUNT_MAX);
}

export function taxStream(): BoundedStream {
  return new BoundedStream(721958466, 0, 8, LINE_COUNT_MAX);
}

export function partKeyStream(scale: TpchScale): KeyStream {
  return keyStream(1808217256, 1, scale.parts, LINE_COUNT_MAX, scale.use64BitKeys);
}

/** Days from the order date to the ship date. */
export function shipDateStream(): BoundedStream {
  return new BoundedStream(1769349045, 1, SHIP_DATE_MAX, LINE_COUNT_MAX);
}

/** Days from the order date to the commit date. */
export function commitDateStream(): BoundedStream {
  return new BoundedStream(904914315, 30, 90, LINE_COUNT_MAX);
}

/** Days from the ship date to the receipt date. */
export function receiptDateStream(): BoundedStream {
  return new BoundedStream(373135028, 1, RECEIPT_DATE_MAX, LINE_COUNT_MAX);
}

/** dbgen's "in the past": on or before its CURRENT_DATE (1995-06-17). */
export function isInPast(epochDay: number): boolean {
  return epochDay <= CURRENT_DATE_EPOCH_DAY;
}

/** Line counts of orders [firstOrder, firstOrder + orderCount) (0-based order indices). */
export function lineCounts(firstOrder: number, orderCount: number): Uint8Array {
  const counts = new Uint8Array(orderCount);
  const rng = lineCountStream();
  rng.advanceRows(firstOrder);
  for (let i = 0; i < orderCount; i++) {
    counts[i] = rng.next();
    rng.rowFinished();
  }
  return counts;
}
