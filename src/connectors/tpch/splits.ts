// Row counts and split descriptors. A split is plain data (structured-clone safe): a table, a
// scale factor and a range of generation units — rows, except partsupp (parts, 4 rows each) and
// lineitem (orders, 1..7 rows each, so an order never straddles two splits).

import { lineCountStream } from './order-streams.js';
import { tpchScale } from './scale.js';
import { tpchTable, type TpchTableName } from './schema.js';

export interface TpchSplit {
  readonly table: TpchTableName;
  readonly scaleFactor: number;
  /** First generation unit, 0-based: a row; a part for partsupp; an order for lineitem. */
  readonly start: number;
  /** Number of generation units in the split. */
  readonly count: number;
  /** Position of this split among the table's splits, and how many there are. */
  readonly index: number;
  readonly splitCount: number;
}

/** How many generation units a table has at a scale factor. */
export function tpchUnitCount(table: TpchTableName, scaleFactor: number): number {
  const s = tpchScale(scaleFactor);
  switch (table) {
    case 'region':
      return 5;
    case 'nation':
      return 25;
    case 'supplier':
      return s.suppliers;
    case 'customer':
      return s.customers;
    case 'part':
    case 'partsupp':
      return s.parts;
    case 'orders':
    case 'lineitem':
      return s.orders;
  }
}

/** Rows per generation unit (lineitem: the expected 4 lines per order). */
function rowsPerUnit(table: TpchTableName): number {
  return table === 'partsupp' || table === 'lineitem' ? 4 : 1;
}

/** Above this many orders lineitem's row count is estimated (4 per order) instead of counted. */
const EXACT_LINEITEM_MAX_ORDERS = 15_000_000;
const lineitemCounts = new Map<number, number>();

/** Number of lines of orders [start, start + count). Costs one random draw per order. */
export function countLines(start: number, count: number): number {
  const rng = lineCountStream();
  rng.advanceRows(start);
  let lines = 0;
  for (let i = 0; i < count; i++) {
    lines += rng.next();
    rng.rowFinished();
  }
  return lines;
}

/**
 * The table's row count. Exact for every table except lineitem above scale factor 10, where it is
 * 4 per order (the expected value; the exact count takes one random draw per order to know).
 */
export function tpchRowCount(table: TpchTableName, scaleFactor: number): number {
  tpchTable(table);
  const units = tpchUnitCount(table, scaleFactor);
  if (table !== 'lineitem') return units * rowsPerUnit(table);
  if (units > EXACT_LINEITEM_MAX_ORDERS) return units * 4;
  let rows = lineitemCounts.get(units);
  if (rows === undefined) {
    rows = countLines(0, units);
    lineitemCounts.set(units, rows);
  }
  return rows;
}

/** Splits covering the table, each about `targetRowsPerSplit` rows, in order. */
export function tpchSplits(table: TpchTableName, scaleFactor: number, targetRowsPerSplit: number): TpchSplit[] {
  tpchTable(table);
  if (!(targetRowsPerSplit >= 1)) throw new RangeError(`targetRowsPerSplit must be at least 1, got ${targetRowsPerSplit}`);
  const units = tpchUnitCount(table, scaleFactor);
  const unitsPerSplit = Math.max(1, Math.round(targetRowsPerSplit / rowsPerUnit(table)));
  const splitCount = Math.max(1, Math.ceil(units / unitsPerSplit));
  const splits: TpchSplit[] = [];
  for (let i = 0; i < splitCount; i++) {
    const start = Math.floor((i * units) / splitCount);
    const end = Math.floor(((i + 1) * units) / splitCount);
    splits.push({ table, scaleFactor, start, count: end - start, index: i, splitCount });
  }
  return splits;
}
