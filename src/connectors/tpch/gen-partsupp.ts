// partsupp: four rows per part, one per supplier of the part (dbgen's PART_SUPP_BRIDGE formula).
// Splits are ranges of parts.

import { float64Column, int32Column, Int64Writer, Utf8Writer, type Column } from './columns.js';
import { partSupplier } from './formulas.js';
import type { Generated } from './generated.js';
import { TextStream } from './random-values.js';
import { BoundedStream } from './rng.js';
import type { TpchScale } from './scale.js';
import { TPCH_TABLES } from './schema.js';

const cols = TPCH_TABLES.partsupp.columns;
export const SUPPLIERS_PER_PART = 4;

export function generatePartsupp(
  scale: TpchScale,
  firstPart: number,
  partCount: number,
  want: readonly boolean[],
): Generated {
  const rows = partCount * SUPPLIERS_PER_PART;
  const partKeys = want[0] ? new Int64Writer(cols[0].type, rows) : null;
  const suppKeys = want[1] ? new Int64Writer(cols[1].type, rows) : null;
  const qtyRandom = want[2] ? new BoundedStream(1671059989, 1, 9999, SUPPLIERS_PER_PART) : null;
  const qty = want[2] ? int32Column(cols[2].type, rows) : null;
  const costRandom = want[3] ? new BoundedStream(1051288424, 100, 100000, SUPPLIERS_PER_PART) : null;
  const cost = want[3] ? float64Column(cols[3].type, rows) : null;
  const commentRandom = want[4] ? new TextStream(1961692154, 124, SUPPLIERS_PER_PART) : null;
  const comment = commentRandom ? new Utf8Writer(rows, commentRandom.longest) : null;
  for (const s of [qtyRandom, costRandom, commentRandom]) s?.advanceRows(firstPart);

  const suppliers = scale.suppliers;
  let row = 0;
  for (let p = 0; p < partCount; p++) {
    const partKey = firstPart + p + 1;
    for (let n = 0; n < SUPPLIERS_PER_PART; n++, row++) {
      partKeys?.set(row, partKey);
      suppKeys?.set(row, partSupplier(partKey, n, suppliers));
      if (qty && qtyRandom) qty.values[row] = qtyRandom.next();
      if (cost && costRandom) cost.values[row] = costRandom.next() / 100;
      if (comment && commentRandom) {
        commentRandom.write(comment);
        comment.end();
      }
    }
    qtyRandom?.rowFinished();
    costRandom?.rowFinished();
    commentRandom?.rowFinished();
  }
  const columns: (Column | null)[] = [
    partKeys?.column ?? null,
    suppKeys?.column ?? null,
    qty,
    cost,
    comment?.finish(cols[4].type) ?? null,
  ];
  return { length: rows, columns };
}
