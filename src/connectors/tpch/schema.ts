// The eight TPC-H tables as Trino's tpch connector shows them: simplified column names (no c_, l_
// prefixes), bigint keys, integer counts, double money and quantities, dates, bounded varchars.

import { BIGINT, DATE, DOUBLE, INTEGER, varchar, type SqlType } from '../../data/types.js';

export type TpchTableName = 'region' | 'nation' | 'supplier' | 'customer' | 'part' | 'partsupp' | 'orders' | 'lineitem';

/** Table names in dbgen's generation order (small reference tables first). */
export const TPCH_TABLE_NAMES: readonly TpchTableName[] = [
  'region',
  'nation',
  'supplier',
  'customer',
  'part',
  'partsupp',
  'orders',
  'lineitem',
];

/** How a column is written in dbgen's .tbl text. */
export type TblFormat = 'integer' | 'money' | 'date' | 'text';

export interface TpchColumn {
  readonly name: string;
  readonly type: SqlType;
  /** dbgen's text form: integers plain, money with two decimals, dates YYYY-MM-DD, text as is. */
  readonly tbl: TblFormat;
}

export interface TpchTable {
  readonly name: TpchTableName;
  readonly columns: readonly TpchColumn[];
}

const key = (name: string): TpchColumn => ({ name, type: BIGINT, tbl: 'integer' });
const int = (name: string): TpchColumn => ({ name, type: INTEGER, tbl: 'integer' });
const money = (name: string): TpchColumn => ({ name, type: DOUBLE, tbl: 'money' });
const date = (name: string): TpchColumn => ({ name, type: DATE, tbl: 'date' });
const text = (name: string, length: number): TpchColumn => ({ name, type: varchar(length), tbl: 'text' });

export const TPCH_TABLES: Readonly<Record<TpchTableName, TpchTable>> = {
  region: { name: 'region', columns: [key('regionkey'), text('name', 25), text('comment', 152)] },
  nation: {
    name: 'nation',
    columns: [key('nationkey'), text('name', 25), key('regionkey'), text('comment', 152)],
  },
  supplier: {
    name: 'supplier',
    columns: [
      key('suppkey'),
      text('name', 25),
      text('address', 40),
      key('nationkey'),
      text('phone', 15),
      money('acctbal'),
      text('comment', 101),
    ],
  },
  customer: {
    name: 'customer',
    columns: [
      key('custkey'),
      text('name', 25),
      text('address', 40),
      key('nationkey'),
      text('phone', 15),
      money('acctbal'),
      text('mktsegment', 10),
      text('comment', 117),
    ],
  },
  part: {
    name: 'part',
    columns: [
      key('partkey'),
      text('name', 55),
      text('mfgr', 25),
      text('brand', 10),
      text('type', 25),
      int('size'),
      text('container', 10),
      money('retailprice'),
      text('comment', 23),
    ],
  },
  partsupp: {
    name: 'partsupp',
    columns: [key('partkey'), key('suppkey'), int('availqty'), money('supplycost'), text('comment', 199)],
  },
  orders: {
    name: 'orders',
    columns: [
      key('orderkey'),
      key('custkey'),
      text('orderstatus', 1),
      money('totalprice'),
      date('orderdate'),
      text('orderpriority', 15),
      text('clerk', 15),
      int('shippriority'),
      text('comment', 79),
    ],
  },
  lineitem: {
    name: 'lineitem',
    columns: [
      key('orderkey'),
      key('partkey'),
      key('suppkey'),
      int('linenumber'),
      // dbgen prints the quantity as a whole number; Trino types it double.
      { name: 'quantity', type: DOUBLE, tbl: 'integer' },
      money('extendedprice'),
      money('discount'),
      money('tax'),
      text('returnflag', 1),
      text('linestatus', 1),
      date('shipdate'),
      date('commitdate'),
      date('receiptdate'),
      text('shipinstruct', 25),
      text('shipmode', 10),
      text('comment', 44),
    ],
  },
};

export function tpchTable(name: string): TpchTable {
  const table = (TPCH_TABLES as Record<string, TpchTable | undefined>)[name];
  if (!table) throw new RangeError(`unknown TPC-H table '${name}' (tables: ${TPCH_TABLE_NAMES.join(', ')})`);
  return table;
}
