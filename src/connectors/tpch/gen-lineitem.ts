// lineitem: 1..7 lines per order; splits are ranges of orders, so all lines of an order are
// generated together. The line counts of the range are drawn first, which sizes every column
// exactly before the lines are generated.

import { dictColumn, dictIndices, float64Column, int32Column, Int64Writer, Utf8Writer, type Column } from './columns.js';
import {
  codesOf,
  LINE_STATUSES,
  RETURN_FLAG_DICT,
  SHIP_INSTRUCT_DICT,
  SHIP_MODE_DICT,
} from './dictionaries.js';
import { RETURN_FLAGS, SHIP_INSTRUCTIONS, SHIP_MODES } from './distributions.js';
import { orderKey, partPriceCents, partSupplier } from './formulas.js';
import type { Generated } from './generated.js';
import {
  commitDateStream,
  discountStream,
  isInPast,
  LINE_COUNT_MAX,
  lineCounts,
  orderDateStream,
  partKeyStream,
  quantityStream,
  receiptDateStream,
  shipDateStream,
  taxStream,
} from './order-streams.js';
import { TextStream } from './random-values.js';
import { BoundedStream, RandomStream } from './rng.js';
import type { TpchScale } from './scale.js';
import { TPCH_TABLES } from './schema.js';

const cols = TPCH_TABLES.lineitem.columns;
const RETURN_FLAG_CODES = codesOf(RETURN_FLAG_DICT, RETURN_FLAGS);
const RETURN_FLAG_N = RETURN_FLAG_DICT.values.indexOf('N');
const STATUS_F = LINE_STATUSES.values.indexOf('F');
const STATUS_O = LINE_STATUSES.values.indexOf('O');
const INSTRUCT_CODES = codesOf(SHIP_INSTRUCT_DICT, SHIP_INSTRUCTIONS);
const MODE_CODES = codesOf(SHIP_MODE_DICT, SHIP_MODES);

// Column positions.
const ORDERKEY = 0;
const PARTKEY = 1;
const SUPPKEY = 2;
const LINENUMBER = 3;
const QUANTITY = 4;
const EXTENDEDPRICE = 5;
const DISCOUNT = 6;
const TAX = 7;
const RETURNFLAG = 8;
const LINESTATUS = 9;
const SHIPDATE = 10;
const COMMITDATE = 11;
const RECEIPTDATE = 12;
const SHIPINSTRUCT = 13;
const SHIPMODE = 14;
const COMMENT = 15;

export function generateLineitem(
  scale: TpchScale,
  firstOrder: number,
  orderCount: number,
  want: readonly boolean[],
): Generated {
  const counts = lineCounts(firstOrder, orderCount);
  let rows = 0;
  for (let i = 0; i < orderCount; i++) rows += counts[i];

  const needPart = want[PARTKEY] || want[SUPPKEY] || want[EXTENDEDPRICE];
  const needQuantity = want[QUANTITY] || want[EXTENDEDPRICE];
  const needReceipt = want[RECEIPTDATE] || want[RETURNFLAG];
  const needShip = want[SHIPDATE] || want[LINESTATUS] || needReceipt;
  const needOrderDate = needShip || want[COMMITDATE];

  const orderKeys = want[ORDERKEY] ? new Int64Writer(cols[ORDERKEY].type, rows) : null;
  const partKeys = want[PARTKEY] ? new Int64Writer(cols[PARTKEY].type, rows) : null;
  const suppKeys = want[SUPPKEY] ? new Int64Writer(cols[SUPPKEY].type, rows) : null;
  const lineNumbers = want[LINENUMBER] ? int32Column(cols[LINENUMBER].type, rows) : null;
  const quantities = want[QUANTITY] ? float64Column(cols[QUANTITY].type, rows) : null;
  const prices = want[EXTENDEDPRICE] ? float64Column(cols[EXTENDEDPRICE].type, rows) : null;
  const discounts = want[DISCOUNT] ? float64Column(cols[DISCOUNT].type, rows) : null;
  const taxes = want[TAX] ? float64Column(cols[TAX].type, rows) : null;
  const returnFlags = want[RETURNFLAG] ? dictIndices(rows) : null;
  const lineStatuses = want[LINESTATUS] ? dictIndices(rows) : null;
  const shipDates = want[SHIPDATE] ? int32Column(cols[SHIPDATE].type, rows) : null;
  const commitDates = want[COMMITDATE] ? int32Column(cols[COMMITDATE].type, rows) : null;
  const receiptDates = want[RECEIPTDATE] ? int32Column(cols[RECEIPTDATE].type, rows) : null;
  const instructs = want[SHIPINSTRUCT] ? dictIndices(rows) : null;
  const modes = want[SHIPMODE] ? dictIndices(rows) : null;

  const orderDateRandom = needOrderDate ? orderDateStream() : null;
  const quantityRandom = needQuantity ? quantityStream() : null;
  const discountRandom = want[DISCOUNT] ? discountStream() : null;
  const taxRandom = want[TAX] ? taxStream() : null;
  const partRandom = needPart ? partKeyStream(scale) : null;
  const supplierRandom = want[SUPPKEY] ? new BoundedStream(2095021727, 0, 3, LINE_COUNT_MAX) : null;
  const shipRandom = needShip ? shipDateStream() : null;
  const commitRandom = want[COMMITDATE] ? commitDateStream() : null;
  const receiptRandom = needReceipt ? receiptDateStream() : null;
  const flagRandom = want[RETURNFLAG] ? new RandomStream(717419739, LINE_COUNT_MAX) : null;
  const instructRandom = instructs ? new RandomStream(1371272478, LINE_COUNT_MAX) : null;
  const modeRandom = modes ? new RandomStream(675466456, LINE_COUNT_MAX) : null;
  const commentRandom = want[COMMENT] ? new TextStream(1095462486, 27, LINE_COUNT_MAX) : null;
  const comments = commentRandom ? new Utf8Writer(rows, commentRandom.longest) : null;

  orderDateRandom?.advanceRows(firstOrder);
  quantityRandom?.advanceRows(firstOrder);
  discountRandom?.advanceRows(firstOrder);
  taxRandom?.advanceRows(firstOrder);
  partRandom?.advanceRows(firstOrder);
  supplierRandom?.advanceRows(firstOrder);
  shipRandom?.advanceRows(firstOrder);
  commitRandom?.advanceRows(firstOrder);
  receiptRandom?.advanceRows(firstOrder);
  flagRandom?.advanceRows(firstOrder);
  instructRandom?.advanceRows(firstOrder);
  modeRandom?.advanceRows(firstOrder);
  commentRandom?.advanceRows(firstOrder);

  const suppliers = scale.suppliers;
  let row = 0;
  for (let o = 0; o < orderCount; o++) {
    const key = orderKey(firstOrder + o + 1);
    const lines = counts[o];
    let orderDate = 0;
    if (orderDateRandom) {
      orderDate = orderDateRandom.next();
      orderDateRandom.rowFinished();
    }
    for (let l = 0; l < lines; l++, row++) {
      orderKeys?.set(row, key);
      if (lineNumbers) lineNumbers.values[row] = l + 1;
      let quantity = 0;
      if (quantityRandom) {
        quantity = quantityRandom.next();
        if (quantities) quantities.values[row] = quantity;
      }
      if (discountRandom && discounts) discounts.values[row] = discountRandom.next() / 100;
      if (taxRandom && taxes) taxes.values[row] = taxRandom.next() / 100;
      if (partRandom) {
        const partKey = partRandom.next();
        partKeys?.set(row, partKey);
        if (supplierRandom && suppKeys) suppKeys.set(row, partSupplier(partKey, supplierRandom.next(), suppliers));
        if (prices) prices.values[row] = (partPriceCents(partKey) * quantity) / 100;
      }
      if (shipRandom) {
        const shipDate = orderDate + shipRandom.next();
        if (shipDates) shipDates.values[row] = shipDate;
        if (lineStatuses) lineStatuses[row] = isInPast(shipDate) ? STATUS_F : STATUS_O;
        if (receiptRandom) {
          const receiptDate = shipDate + receiptRandom.next();
          if (receiptDates) receiptDates.values[row] = receiptDate;
          if (returnFlags && flagRandom) {
            returnFlags[row] = isInPast(receiptDate)
              ? RETURN_FLAG_CODES[RETURN_FLAGS.pick(flagRandom)]
              : RETURN_FLAG_N;
          }
        }
      }
      if (commitRandom && commitDates) commitDates.values[row] = orderDate + commitRandom.next();
      if (instructRandom && instructs) instructs[row] = INSTRUCT_CODES[SHIP_INSTRUCTIONS.pick(instructRandom)];
      if (modeRandom && modes) modes[row] = MODE_CODES[SHIP_MODES.pick(modeRandom)];
      if (commentRandom && comments) {
        commentRandom.write(comments);
        comments.end();
      }
    }
    quantityRandom?.rowFinished();
    discountRandom?.rowFinished();
    taxRandom?.rowFinished();
    partRandom?.rowFinished();
    supplierRandom?.rowFinished();
    shipRandom?.rowFinished();
    commitRandom?.rowFinished();
    receiptRandom?.rowFinished();
    flagRandom?.rowFinished();
    instructRandom?.rowFinished();
    modeRandom?.rowFinished();
    commentRandom?.rowFinished();
  }

  const columns: (Column | null)[] = [
    orderKeys?.column ?? null,
    partKeys?.column ?? null,
    suppKeys?.column ?? null,
    lineNumbers,
    quantities,
    prices,
    discounts,
    taxes,
    returnFlags ? dictColumn(RETURN_FLAG_DICT, returnFlags) : null,
    lineStatuses ? dictColumn(LINE_STATUSES, lineStatuses) : null,
    shipDates,
    commitDates,
    receiptDates,
    instructs ? dictColumn(SHIP_INSTRUCT_DICT, instructs) : null,
    modes ? dictColumn(SHIP_MODE_DICT, modes) : null,
    comments?.finish(cols[COMMENT].type) ?? null,
  ];
  return { length: rows, columns };
}
