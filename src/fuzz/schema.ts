// What the generator knows about the data: tpch.tiny's tables (column types, value domains for
// literals that select something, keys and foreign keys) and the small memory tables it creates in
// both engines (NULLs, duplicates, an empty table).

import type { Ty } from './ast.js';

/** Literals worth comparing a column with: a numeric range or a list of values. */
export type Domain = { readonly lo: number; readonly hi: number } | { readonly values: readonly (string | number)[] } | { readonly dates: readonly [string, string] };

export interface ColumnDef {
  readonly name: string;
  readonly t: Ty;
  readonly dom: Domain;
  /** LIKE patterns that match some values. */
  readonly patterns?: readonly string[];
  readonly nullable?: boolean;
}

export interface TableDef {
  readonly name: string;
  readonly rows: number;
  readonly columns: readonly ColumnDef[];
  /** Column names that together identify a row. */
  readonly key: readonly string[];
}

const D: readonly [string, string] = ['1992-01-01', '1998-12-31'];
const nations = ['ALGERIA', 'ARGENTINA', 'BRAZIL', 'CANADA', 'EGYPT', 'FRANCE', 'GERMANY', 'INDIA', 'JAPAN', 'PERU', 'UNITED STATES'];

export const TPCH: readonly TableDef[] = [
  { name: 'region', rows: 5, key: ['regionkey'], columns: [
    { name: 'regionkey', t: 'int', dom: { lo: 0, hi: 4 } },
    { name: 'name', t: 'str', dom: { values: ['AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST'] }, patterns: ['A%', '%A', '%ST', 'E_ROPE'] },
  ] },
  { name: 'nation', rows: 25, key: ['nationkey'], columns: [
    { name: 'nationkey', t: 'int', dom: { lo: 0, hi: 24 } },
    { name: 'name', t: 'str', dom: { values: nations }, patterns: ['A%', '%A', '%AN%', 'U%', '_R%'] },
    { name: 'regionkey', t: 'int', dom: { lo: 0, hi: 4 } },
  ] },
  { name: 'supplier', rows: 100, key: ['suppkey'], columns: [
    { name: 'suppkey', t: 'int', dom: { lo: 1, hi: 100 } },
    { name: 'name', t: 'str', dom: { values: ['Supplier#000000001', 'Supplier#000000050'] }, patterns: ['Supplier#00000001%', '%5'] },
    { name: 'nationkey', t: 'int', dom: { lo: 0, hi: 24 } },
    { name: 'acctbal', t: 'dbl', dom: { lo: -999, hi: 9999 } },
    { name: 'phone', t: 'str', dom: { values: ['27-918-335-1736', '15-679-861-2259'] }, patterns: ['1%', '%-1%'] },
  ] },
  { name: 'customer', rows: 1500, key: ['custkey'], columns: [
    { name: 'custkey', t: 'int', dom: { lo: 1, hi: 1500 } },
    { name: 'name', t: 'str', dom: { values: ['Customer#000000001', 'Customer#000000777'] }, patterns: ['Customer#0000001%', '%7'] },
    { name: 'nationkey', t: 'int', dom: { lo: 0, hi: 24 } },
    { name: 'acctbal', t: 'dbl', dom: { lo: -999, hi: 9999 } },
    { name: 'mktsegment', t: 'str', dom: { values: ['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'HOUSEHOLD', 'MACHINERY'] }, patterns: ['%ING', 'B%', '%U%'] },
  ] },
  { name: 'part', rows: 2000, key: ['partkey'], columns: [
    { name: 'partkey', t: 'int', dom: { lo: 1, hi: 2000 } },
    { name: 'name', t: 'str', dom: { values: ['goldenrod lavender spring chocolate lace'] }, patterns: ['%green%', 'forest%', '%lace'] },
    { name: 'mfgr', t: 'str', dom: { values: ['Manufacturer#1', 'Manufacturer#3', 'Manufacturer#5'] }, patterns: ['%#1', 'Manufacturer#_'] },
    { name: 'brand', t: 'str', dom: { values: ['Brand#13', 'Brand#23', 'Brand#45'] }, patterns: ['Brand#1%', '%3'] },
    { name: 'type', t: 'str', dom: { values: ['PROMO BURNISHED COPPER', 'STANDARD POLISHED TIN', 'ECONOMY ANODIZED STEEL'] }, patterns: ['%BRASS', 'PROMO%', '%POLISHED%'] },
    { name: 'size', t: 'int', dom: { lo: 1, hi: 50 } },
    { name: 'container', t: 'str', dom: { values: ['SM BOX', 'LG CASE', 'MED BAG', 'JUMBO PKG'] }, patterns: ['SM%', '%BOX', '% PACK'] },
    { name: 'retailprice', t: 'dbl', dom: { lo: 900, hi: 2100 } },
  ] },
  { name: 'partsupp', rows: 8000, key: ['partkey', 'suppkey'], columns: [
    { name: 'partkey', t: 'int', dom: { lo: 1, hi: 2000 } },
    { name: 'suppkey', t: 'int', dom: { lo: 1, hi: 100 } },
    { name: 'availqty', t: 'int', dom: { lo: 1, hi: 9999 } },
    { name: 'supplycost', t: 'dbl', dom: { lo: 1, hi: 1000 } },
  ] },
  { name: 'orders', rows: 15000, key: ['orderkey'], columns: [
    { name: 'orderkey', t: 'int', dom: { lo: 1, hi: 60000 } },
    { name: 'custkey', t: 'int', dom: { lo: 1, hi: 1500 } },
    { name: 'orderstatus', t: 'str', dom: { values: ['F', 'O', 'P'] } },
    { name: 'totalprice', t: 'dbl', dom: { lo: 800, hi: 500000 } },
    { name: 'orderdate', t: 'date', dom: { dates: D } },
    { name: 'orderpriority', t: 'str', dom: { values: ['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'] }, patterns: ['1%', '%-H%', '%LOW'] },
    { name: 'clerk', t: 'str', dom: { values: ['Clerk#000000001', 'Clerk#000000500'] }, patterns: ['Clerk#0000009%'] },
    { name: 'shippriority', t: 'int', dom: { lo: 0, hi: 0 } },
  ] },
  { name: 'lineitem', rows: 60175, key: ['orderkey', 'linenumber'], columns: [
    { name: 'orderkey', t: 'int', dom: { lo: 1, hi: 60000 } },
    { name: 'partkey', t: 'int', dom: { lo: 1, hi: 2000 } },
    { name: 'suppkey', t: 'int', dom: { lo: 1, hi: 100 } },
    { name: 'linenumber', t: 'int', dom: { lo: 1, hi: 7 } },
    { name: 'quantity', t: 'dbl', dom: { lo: 1, hi: 50 } },
    { name: 'extendedprice', t: 'dbl', dom: { lo: 900, hi: 100000 } },
    { name: 'discount', t: 'dbl', dom: { values: [0, 0.02, 0.05, 0.07, 0.1] } },
    { name: 'tax', t: 'dbl', dom: { values: [0, 0.01, 0.04, 0.08] } },
    { name: 'returnflag', t: 'str', dom: { values: ['A', 'N', 'R'] } },
    { name: 'linestatus', t: 'str', dom: { values: ['F', 'O'] } },
    { name: 'shipdate', t: 'date', dom: { dates: D } },
    { name: 'commitdate', t: 'date', dom: { dates: D } },
    { name: 'receiptdate', t: 'date', dom: { dates: D } },
    { name: 'shipmode', t: 'str', dom: { values: ['AIR', 'FOB', 'MAIL', 'RAIL', 'REG AIR', 'SHIP', 'TRUCK'] }, patterns: ['%AIR', 'R%', '_AI_'] },
  ] },
];

/** child table, its columns, the parent table, its key columns. */
export const FOREIGN_KEYS: readonly (readonly [string, readonly string[], string, readonly string[]])[] = [
  ['nation', ['regionkey'], 'region', ['regionkey']],
  ['supplier', ['nationkey'], 'nation', ['nationkey']],
  ['customer', ['nationkey'], 'nation', ['nationkey']],
  ['partsupp', ['partkey'], 'part', ['partkey']],
  ['partsupp', ['suppkey'], 'supplier', ['suppkey']],
  ['orders', ['custkey'], 'customer', ['custkey']],
  ['lineitem', ['orderkey'], 'orders', ['orderkey']],
  ['lineitem', ['partkey'], 'part', ['partkey']],
  ['lineitem', ['suppkey'], 'supplier', ['suppkey']],
  ['lineitem', ['partkey', 'suppkey'], 'partsupp', ['partkey', 'suppkey']],
  ['customer', ['nationkey'], 'supplier', ['nationkey']],
  // the memory tables: k is a duplicated, NULL-bearing join key
  ['memory.fz.t1', ['k'], 'memory.fz.t2', ['k']],
  ['memory.fz.t2', ['k'], 'memory.fz.t3', ['k']],
  ['memory.fz.t1', ['k'], 'memory.fz.t3', ['k']],
  ['memory.fz.t1', ['k'], 'nation', ['regionkey']],
  ['memory.fz.t2', ['k'], 'region', ['regionkey']],
];

const MEMORY_COLUMNS: readonly (ColumnDef & { readonly sqlType: string })[] = [
  { name: 'id', t: 'int', sqlType: 'bigint', dom: { lo: 1, hi: 12 } },
  { name: 'k', t: 'int', sqlType: 'integer', dom: { lo: 0, hi: 4 }, nullable: true },
  { name: 'v', t: 'dbl', sqlType: 'double', dom: { values: [-1.5, 0, 2.25, 10] }, nullable: true },
  { name: 's', t: 'str', sqlType: 'varchar', dom: { values: ['', 'a', 'ab', 'B', 'abc'] }, patterns: ['a%', '%b%', '_'], nullable: true },
  { name: 'd', t: 'date', sqlType: 'date', dom: { dates: ['1995-01-01', '1996-12-31'] }, nullable: true },
  { name: 'f', t: 'dec', sqlType: 'decimal(10,2)', dom: { values: [-3.5, 0, 1.25, 99.99] }, nullable: true },
  { name: 'b', t: 'bool', sqlType: 'boolean', dom: { values: [] }, nullable: true },
];

/** Rows as SQL literals (NULLs and duplicates on purpose). */
const T1_ROWS = [
  "1, 1, 1.5e0, 'a', DATE '1995-01-01', 1.25, true",
  "2, 1, 1.5e0, 'a', DATE '1995-01-01', 1.25, true",
  "3, 2, NULL, 'ab', DATE '1995-06-30', -3.50, false",
  "4, NULL, -1.5e0, NULL, NULL, NULL, NULL",
  "5, 3, 0e0, '', DATE '1996-02-29', 0.00, true",
  "6, 3, 2.25e0, 'B', DATE '1995-01-01', 99.99, false",
  "7, NULL, NULL, 'abc', DATE '1996-12-31', 1.25, NULL",
  "8, 0, 10e0, 'a', NULL, -3.50, true",
  "9, 4, 10e0, 'ab', DATE '1995-03-15', 0.00, false",
  "10, 2, -1.5e0, NULL, DATE '1996-02-29', NULL, true",
];
const T2_ROWS = [
  "1, 1, 2.25e0, 'a', DATE '1995-01-01', 1.25, false",
  "2, 2, 2.25e0, 'B', DATE '1995-06-30', 99.99, true",
  "3, 2, NULL, NULL, NULL, NULL, NULL",
  "4, NULL, 0e0, 'ab', DATE '1996-02-29', 0.00, true",
  "5, 5, -1.5e0, 'abc', DATE '1995-01-01', -3.50, false",
  "6, NULL, NULL, '', NULL, 1.25, NULL",
  "7, 1, 10e0, 'a', DATE '1996-12-31', 0.00, true",
];

export const MEMORY_TABLES: readonly (TableDef & { readonly values: readonly string[] })[] = [
  { name: 'memory.fz.t1', rows: T1_ROWS.length, key: ['id'], columns: MEMORY_COLUMNS, values: T1_ROWS },
  { name: 'memory.fz.t2', rows: T2_ROWS.length, key: ['id'], columns: MEMORY_COLUMNS, values: T2_ROWS },
  { name: 'memory.fz.t3', rows: 0, key: ['id'], columns: MEMORY_COLUMNS, values: [] },
];

/** Statements creating the memory tables; they run unchanged on both engines. */
export function memorySetup(): string[] {
  const out = ['CREATE SCHEMA IF NOT EXISTS memory.fz'];
  for (const t of MEMORY_TABLES) {
    out.push(`CREATE TABLE ${t.name} (${MEMORY_COLUMNS.map((c) => `${c.name} ${c.sqlType}`).join(', ')})`);
    if (t.values.length) out.push(`INSERT INTO ${t.name} VALUES ${t.values.map((r) => `(${r})`).join(', ')}`);
  }
  return out;
}

/** The same tables as .slt statements (unqualified: an .slt file with `require memory` has its own schema). */
export function memorySetupForSlt(): string[] {
  return memorySetup().slice(1).map((s) => s.replaceAll('memory.fz.', ''));
}
