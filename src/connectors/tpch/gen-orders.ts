// orders: one row per order index, with sparse keys. The status and total price come from the
// order's lines, drawn from the same streams lineitem uses (order-streams.ts).

import { dictColumn, dictIndices, float64Column, int32Column, Int64Writer, Utf8Writer, type Column } from './columns.js';
import { codesOf, ORDER_PRIORITY_DICT, ORDER_STATUSES } from './dictionaries.js';
import { ORDER_PRIORITIES } from './distributions.js';
import { orderKey, partPriceCents } from './formulas.js';
import type { Generated } from './generated.js';
import {
  discountStream,
  isInPast,
  lineCountStream,
  orderDateStream,
  partKeyStream,
  quantityStream,
  shipDateStream,
  taxStream,
} from './order-streams.js';
import { TextStream } from './random-values.js';
import { BoundedStream, keyStream, RandomStream } from './rng.js';
import type { TpchScale } from './scale.js';
import { TPCH_TABLES } from './schema.js';

const cols = TPCH_TABLES.orders.columns;
const CUSTOMER_MORTALITY = 3;
const CLERK_PREFIX = Buffer.from('Clerk#', 'latin1');
const PRIORITY_CODES = codesOf(ORDER_PRIORITY_DICT, ORDER_PRIORITIES);
const STATUS_F = ORDER_STATUSES.values.indexOf('F');
const STATUS_O = ORDER_STATUSES.values.indexOf('O');
const STATUS_P = ORDER_STATUSES.values.indexOf('P');

export function generateOrders(scale: TpchScale, first: number, count: number, want: readonly boolean[]): Generated {
  const keys = want[0] ? new Int64Writer(cols[0].type, count) : null;
  const custRandom = want[1] ? keyStream(851767375, 1, scale.customers, 1, scale.use64BitKeys) : null;
  const custKeys = want[1] ? new Int64Writer(cols[1].type, count) : null;
  const status = want[2] ? dictIndices(count) : null;
  const total = want[3] ? float64Column(cols[3].type, count) : null;
  const needLines = status !== null || total !== null;
  const needDate = want[4] || needLines;
  const dateRandom = needDate ? orderDateStream() : null;
  const date = want[4] ? int32Column(cols[4].type, count) : null;
  const priorityRandom = want[5] ? new RandomStream(591449447, 1) : null;
  const priority = want[5] ? dictIndices(count) : null;
  const clerkRandom = want[6] ? new BoundedStream(1171034773, 1, scale.clerks) : null;
  const clerk = clerkRandom ? new Utf8Writer(count, CLERK_PREFIX.length + 16) : null;
  const shipPriority = want[7] ? int32Column(cols[7].type, count) : null;
  const commentRandom = want[8] ? new TextStream(276090261, 49) : null;
  const comment = commentRandom ? new Utf8Writer(count, commentRandom.longest) : null;

  const lineCountRandom = needLines ? lineCountStream() : null;
  const qtyRandom = needLines ? quantityStream() : null;
  const discountRandom = needLines ? discountStream() : null;
  const taxRandom = needLines ? taxStream() : null;
  const partRandom = needLines ? partKeyStream(scale) : null;
  const shipRandom = needLines ? shipDateStream() : null;

  for (const s of [custRandom, dateRandom, priorityRandom, clerkRandom, commentRandom]) s?.advanceRows(first);
  for (const s of [lineCountRandom, qtyRandom, discountRandom, taxRandom, partRandom, shipRandom]) s?.advanceRows(first);

  const maxCustomer = scale.customers;
  for (let i = 0; i < count; i++) {
    keys?.set(i, orderKey(first + i + 1));
    if (custKeys && custRandom) {
      let customer = custRandom.next();
      custRandom.rowFinished();
      // a third of the customers never order
      let delta = 1;
      while (customer % CUSTOMER_MORTALITY === 0) {
        customer += delta;
        if (customer > maxCustomer) customer = maxCustomer;
        delta = -delta;
      }
      custKeys.set(i, customer);
    }
    let orderDate = 0;
    if (dateRandom) {
      orderDate = dateRandom.next();
      dateRandom.rowFinished();
      if (date) date.values[i] = orderDate;
    }
    if (lineCountRandom && qtyRandom && discountRandom && taxRandom && partRandom && shipRandom) {
      const lines = lineCountRandom.next();
      let totalCents = 0;
      let shipped = 0;
      for (let l = 0; l < lines; l++) {
        const quantity = qtyRandom.next();
        const discount = discountRandom.next();
        const tax = taxRandom.next();
        const extended = partPriceCents(partRandom.next()) * quantity;
        totalCents += Math.floor((Math.floor((extended * (100 - discount)) / 100) * (100 + tax)) / 100);
        if (isInPast(orderDate + shipRandom.next())) shipped++;
      }
      if (total) total.values[i] = totalCents / 100;
      if (status) status[i] = shipped === lines ? STATUS_F : shipped > 0 ? STATUS_P : STATUS_O;
      lineCountRandom.rowFinished();
      qtyRandom.rowFinished();
      discountRandom.rowFinished();
      taxRandom.rowFinished();
      partRandom.rowFinished();
      shipRandom.rowFinished();
    }
    if (priority && priorityRandom) {
      priority[i] = PRIORITY_CODES[ORDER_PRIORITIES.pick(priorityRandom)];
      priorityRandom.rowFinished();
    }
    if (clerk && clerkRandom) {
      clerk.bytes(CLERK_PREFIX);
      clerk.number(clerkRandom.next(), 9);
      clerk.end();
      clerkRandom.rowFinished();
    }
    if (comment && commentRandom) {
      commentRandom.write(comment);
      comment.end();
      commentRandom.rowFinished();
    }
  }
  const columns: (Column | null)[] = [
    keys?.column ?? null,
    custKeys?.column ?? null,
    status ? dictColumn(ORDER_STATUSES, status) : null,
    total,
    date,
    priority ? dictColumn(ORDER_PRIORITY_DICT, priority) : null,
    clerk?.finish(cols[6].type) ?? null,
    shipPriority,
    comment?.finish(cols[8].type) ?? null,
  ];
  return { length: count, columns };
}
