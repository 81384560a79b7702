// generateTpchSplit: the rows of one split as a Page, generated without touching earlier rows
// (every random stream jumps straight to the split's first unit).

import type { Column, Page } from '../../data/page.js';
import { generateCustomer } from './gen-customer.js';
import { generateLineitem } from './gen-lineitem.js';
import { generateOrders } from './gen-orders.js';
import { generatePart } from './gen-part.js';
import { generatePartsupp } from './gen-partsupp.js';
import { generateNation, generateRegion } from './gen-reference.js';
import { generateSupplier } from './gen-supplier.js';
import type { Generated } from './generated.js';
import { tpchScale } from './scale.js';
import { tpchTable } from './schema.js';
import { tpchUnitCount, type TpchSplit } from './splits.js';

/**
 * The split's rows. `columns` lists the positions (in TPCH_TABLES order) to materialize, in the
 * order the page should hold them; without it every column is produced in table order.
 */
export function generateTpchSplit(split: TpchSplit, columns?: readonly number[]): Page {
  const table = tpchTable(split.table);
  const width = table.columns.length;
  const positions = columns ?? table.columns.map((_, i) => i);
  const want: boolean[] = new Array<boolean>(width).fill(false);
  for (const p of positions) {
    if (!Number.isInteger(p) || p < 0 || p >= width) {
      throw new RangeError(`column position ${p} out of range for tpch.${split.table} (0..${width - 1})`);
    }
    want[p] = true;
  }
  const units = tpchUnitCount(split.table, split.scaleFactor);
  const { start, count } = split;
  if (!Number.isInteger(start) || !Number.isInteger(count) || start < 0 || count < 0 || start + count > units) {
    throw new RangeError(`split [${start}, ${start + count}) outside tpch.${split.table}'s ${units} units`);
  }
  const generated = generateUnits(split, want);
  const out: Column[] = positions.map((p) => {
    const c = generated.columns[p];
    if (c === null) throw new Error(`column ${p} of tpch.${split.table} was not generated`);
    return c;
  });
  return { length: generated.length, columns: out };
}

function generateUnits(split: TpchSplit, want: readonly boolean[]): Generated {
  const scale = tpchScale(split.scaleFactor);
  const { start, count } = split;
  switch (split.table) {
    case 'region':
      return generateRegion(start, count, want);
    case 'nation':
      return generateNation(start, count, want);
    case 'supplier':
      return generateSupplier(start, count, want);
    case 'customer':
      return generateCustomer(start, count, want);
    case 'part':
      return generatePart(start, count, want);
    case 'partsupp':
      return generatePartsupp(scale, start, count, want);
    case 'orders':
      return generateOrders(scale, start, count, want);
    case 'lineitem':
      return generateLineitem(scale, start, count, want);
  }
}
