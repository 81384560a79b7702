// Columnar generation: every split's values equal dbgen's text, splits are independent of each
// other (any order, any size), pages share one dictionary per column, and the scale rules follow
// dbgen.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { SHARED_TPCH } from './support/shared.js';
import { readInt64, readUtf8, type Column, type Page } from '../src/data/page.js';
import {
  generateTpchSplit,
  textPool,
  TPCH_DICTIONARIES,
  TPCH_TABLE_NAMES,
  TPCH_TABLES,
  tpchRowCount,
  tpchScale,
  tpchSplits,
  type TpchSplit,
  type TpchTableName,
} from '../src/connectors/tpch/index.js';

const REFERENCE = join(SHARED_TPCH, 'sf0.01');
const ROWS_AT_TINY: Record<TpchTableName, number> = {
  region: 5,
  nation: 25,
  supplier: 100,
  customer: 1500,
  part: 2000,
  partsupp: 8000,
  orders: 15000,
  lineitem: 60175,
};

function referenceRows(table: TpchTableName): string[][] {
  const text = gunzipSync(readFileSync(join(REFERENCE, `${table}.tbl.gz`))).toString('latin1');
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => l.split('|').slice(0, -1));
}

function isoDate(epochDay: number): string {
  return new Date(epochDay * 86_400_000).toISOString().slice(0, 10);
}

/** A value as dbgen prints it, read through the page API. */
function textOf(col: Column, row: number, tbl: string): string {
  switch (col.kind) {
    case 'varchar':
      return readUtf8(col, row);
    case 'dict':
      return readUtf8(col.dictionary, col.indices[row]);
    case 'fixed': {
      const id = col.type.id;
      if (id === 'bigint') return String(readInt64(col.values as Int32Array, row));
      if (id === 'date') return isoDate(col.values[row]);
      if (id === 'double') return tbl === 'money' ? col.values[row].toFixed(2) : String(col.values[row]);
      return String(col.values[row]);
    }
  }
}

function pageRows(table: TpchTableName, page: Page, positions: readonly number[]): string[][] {
  const spec = TPCH_TABLES[table].columns;
  const rows: string[][] = [];
  for (let r = 0; r < page.length; r++) {
    rows.push(page.columns.map((c, i) => textOf(c, r, spec[positions[i]].tbl)));
  }
  return rows;
}

function allPositions(table: TpchTableName): number[] {
  return TPCH_TABLES[table].columns.map((_, i) => i);
}

beforeAll(() => {
  textPool();
});

describe('generateTpchSplit at sf0.01', () => {
  it.each(TPCH_TABLE_NAMES.map((t) => [t]))('%s: every split together gives dbgen rows', (table: TpchTableName) => {
    const want = referenceRows(table);
    expect(want.length).toBe(ROWS_AT_TINY[table]);
    expect(tpchRowCount(table, 0.01)).toBe(ROWS_AT_TINY[table]);
    const splits = tpchSplits(table, 0.01, 700);
    if (ROWS_AT_TINY[table] > 700) expect(splits.length).toBeGreaterThan(1);
    const got: string[][] = [];
    for (const split of splits) {
      const page = generateTpchSplit(split);
      expect(page.columns.length).toBe(TPCH_TABLES[table].columns.length);
      page.columns.forEach((c, i) => {
        expect(c.length).toBe(page.length);
        expect(c.type).toEqual(TPCH_TABLES[table].columns[i].type);
        const buffers = c.kind === 'fixed' ? [c.values] : c.kind === 'varchar' ? [c.offsets, c.data] : [c.indices];
        for (const b of buffers) expect(b.buffer).toBeInstanceOf(SharedArrayBuffer);
      });
      got.push(...pageRows(table, page, allPositions(table)));
    }
    expect(got.length).toBe(want.length);
    for (let r = 0; r < want.length; r++) {
      if (got[r].join('|') !== want[r].join('|')) {
        expect.fail(`${table} row ${r + 1}:\n  got  ${got[r].join('|')}\n  want ${want[r].join('|')}`);
      }
    }
  });

  it('lineitem splits are ranges of orders: no order is cut in two', () => {
    const seen = new Set<number>();
    for (const split of tpchSplits('lineitem', 0.01, 1000)) {
      const page = generateTpchSplit(split, [0, 3]);
      const orderKeys = page.columns[0];
      if (orderKeys.kind !== 'fixed') throw new Error('expected a fixed column');
      const keys = new Set<number>();
      for (let r = 0; r < page.length; r++) keys.add(readInt64(orderKeys.values as Int32Array, r));
      for (const k of keys) {
        expect(seen.has(k)).toBe(false);
        seen.add(k);
      }
      expect(keys.size).toBe(split.count);
    }
    expect(seen.size).toBe(15000);
  });
});

describe('splits are independent', () => {
  const tables: TpchTableName[] = ['supplier', 'customer', 'part', 'partsupp', 'orders', 'lineitem'];

  it.each(tables.map((t) => [t]))('%s: splits generated out of order equal the rows generated in order', (table: TpchTableName) => {
    const positions = allPositions(table);
    const whole = tpchSplits(table, 0.01, 1e9);
    expect(whole.length).toBe(1);
    const inOrder = pageRows(table, generateTpchSplit(whole[0]), positions);

    const splits = tpchSplits(table, 0.01, 333);
    // a fixed shuffle: reverse, then interleave halves
    const shuffled = [...splits].reverse();
    const mixed: TpchSplit[] = [];
    for (let i = 0; i < shuffled.length; i += 2) mixed.push(shuffled[i]);
    for (let i = 1; i < shuffled.length; i += 2) mixed.push(shuffled[i]);
    const bySplit = new Map<number, string[][]>();
    for (const split of mixed) {
      const copy = structuredClone(split);
      bySplit.set(split.index, pageRows(table, generateTpchSplit(copy), positions));
    }
    const reassembled = splits.flatMap((s) => bySplit.get(s.index) ?? []);
    expect(reassembled).toEqual(inOrder);
  });

  it('a split in the middle of sf1 needs no earlier rows and matches a larger split around it', () => {
    const [a] = tpchSplits('lineitem', 1, 4000).slice(700, 701);
    const big: TpchSplit = { ...a, start: a.start - 10, count: a.count + 20 };
    const small = generateTpchSplit(a, [0, 1, 2, 3, 15]);
    const around = generateTpchSplit(big, [0, 1, 2, 3, 15]);
    const smallRows = pageRows('lineitem', small, [0, 1, 2, 3, 15]);
    const aroundRows = pageRows('lineitem', around, [0, 1, 2, 3, 15]);
    const first = aroundRows.findIndex((r) => r[0] === smallRows[0][0]);
    expect(first).toBeGreaterThan(0);
    expect(aroundRows.slice(first, first + smallRows.length)).toEqual(smallRows);
  });
});

describe('pages', () => {
  it('dictionary columns share one dictionary object per column across splits', () => {
    for (const table of TPCH_TABLE_NAMES) {
      const dicts = TPCH_DICTIONARIES[table] ?? {};
      const spec = TPCH_TABLES[table].columns;
      const pages = tpchSplits(table, 0.01, 500)
        .slice(0, 3)
        .map((s) => generateTpchSplit(s));
      for (const [name, dict] of Object.entries(dicts)) {
        const pos = spec.findIndex((c) => c.name === name);
        expect(pos).toBeGreaterThanOrEqual(0);
        for (const page of pages) {
          const col = page.columns[pos];
          expect(col.kind).toBe('dict');
          if (col.kind === 'dict') expect(col.dictionary).toBe(dict.column);
        }
        // sorted, so index order is value order
        expect([...dict.values].sort()).toEqual(dict.values);
      }
    }
    const li = TPCH_DICTIONARIES.lineitem;
    expect(Object.keys(li).sort()).toEqual(['linestatus', 'returnflag', 'shipinstruct', 'shipmode']);
    expect(li.returnflag.values).toEqual(['A', 'N', 'R']);
  });

  it('materializes only the requested columns, in the requested order', () => {
    const [split] = tpchSplits('lineitem', 0.01, 2000);
    const full = generateTpchSplit(split);
    const some = generateTpchSplit(split, [15, 0, 8, 5]);
    expect(some.length).toBe(full.length);
    expect(some.columns.map((c) => c.type)).toEqual([15, 0, 8, 5].map((p) => TPCH_TABLES.lineitem.columns[p].type));
    expect(pageRows('lineitem', some, [15, 0, 8, 5])).toEqual(
      pageRows('lineitem', full, allPositions('lineitem')).map((r) => [r[15], r[0], r[8], r[5]]),
    );
    expect(() => generateTpchSplit(split, [16])).toThrow(RangeError);
  });

  it('money is exact cents / 100', () => {
    const page = generateTpchSplit(tpchSplits('orders', 0.01, 1e9)[0], [3]);
    const col = page.columns[0];
    if (col.kind !== 'fixed') throw new Error('expected a fixed column');
    for (let r = 0; r < page.length; r++) {
      const v = col.values[r];
      expect(Math.round(v * 100) / 100).toBe(v);
    }
  });
});

describe('scale factors follow dbgen', () => {
  it('counts rows as dbgen does', () => {
    expect(tpchRowCount('lineitem', 1)).toBe(6001215);
    expect(tpchRowCount('orders', 1)).toBe(1500000);
    expect(tpchRowCount('partsupp', 1)).toBe(800000);
    expect(tpchRowCount('nation', 100)).toBe(25);
    // below 1: bases scaled by floor(1000 * sf) / 1000, at least one row
    expect(tpchRowCount('customer', 0.0015)).toBe(150);
    expect(tpchRowCount('supplier', 0.0001)).toBe(1);
    // from 1 on: the scale factor is truncated to an integer
    expect(tpchScale(1.5)).toMatchObject({ scale: 1, customers: 150000, orders: 1500000 });
    expect(tpchRowCount('lineitem', 1.5)).toBe(6001215);
    // large: lineitem is estimated at 4 lines per order
    expect(tpchRowCount('lineitem', 1000)).toBe(6_000_000_000);
    expect(() => tpchRowCount('orders', 0)).toThrow(RangeError);
  });

  it('splits cover every unit exactly once and are plain data', () => {
    for (const table of TPCH_TABLE_NAMES) {
      const splits = tpchSplits(table, 0.1, 10_000);
      let next = 0;
      for (const s of splits) {
        expect(s.start).toBe(next);
        next += s.count;
        expect(structuredClone(s)).toEqual(s);
        expect(JSON.parse(JSON.stringify(s))).toEqual(s);
      }
      expect(next).toBe(table === 'partsupp' ? 20000 : table === 'lineitem' ? 150000 : tpchRowCount(table, 0.1));
    }
  });

  it('generates keys in range with the 64-bit streams of scale factor 30000', () => {
    const split: TpchSplit = { table: 'lineitem', scaleFactor: 30000, start: 1234567890, count: 50, index: 0, splitCount: 1 };
    const page = generateTpchSplit(split, [1, 2]);
    expect(page.length).toBeGreaterThanOrEqual(50);
    const s = tpchScale(30000);
    for (let r = 0; r < page.length; r++) {
      const [p, q] = page.columns.map((c) => readInt64((c as { values: Int32Array }).values, r));
      expect(p).toBeGreaterThanOrEqual(1);
      expect(p).toBeLessThanOrEqual(s.parts);
      expect(q).toBeGreaterThanOrEqual(1);
      expect(q).toBeLessThanOrEqual(s.suppliers);
    }
  });
});
