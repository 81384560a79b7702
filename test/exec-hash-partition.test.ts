// The hash partition filter of partitioned aggregations: every row lands in exactly one partition,
// and equal key values land in the same one whatever page or layout they come in (a dictionary or
// plain UTF-8, another dictionary, int64 halves, -0 and 0, NULL).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageFromRows } from '../src/connectors/rows.js';
import { dictionaryColumn, varcharColumnOf, type Page } from '../src/data/page.js';
import { BIGINT, DOUBLE, VARCHAR } from '../src/data/types.js';
import { selectPartition } from '../src/exec/operators/hash-partition.js';
import { runQueryOk, startServer, type TestServer } from './support/server.js';

function partitionOfRows(page: Page, keys: readonly number[], count: number): number[] {
  const owner = new Array<number>(page.length).fill(-1);
  for (let index = 0; index < count; index++) {
    const sel = new Int32Array(page.length);
    const kept = selectPartition(page, keys, count, index, sel);
    for (let i = 0; i < kept; i++) {
      expect(owner[sel[i]], `row ${sel[i]} in two partitions`).toBe(-1);
      owner[sel[i]] = index;
    }
  }
  return owner;
}

describe('selectPartition', () => {
  const rows = Array.from({ length: 5000 }, (_, i) => [`key ${i % 997}`, i % 13 === 0 ? null : (i % 31) * 2 ** 33 - 7, i % 7 === 0 ? -0 : i % 7]);
  const page = pageFromRows([VARCHAR, BIGINT, DOUBLE], rows);

  for (const count of [2, 3, 8]) {
    it(`puts every row in exactly one of ${count} partitions, spread evenly`, () => {
      const owner = partitionOfRows(page, [0, 1, 2], count);
      expect(owner.every((p) => p >= 0 && p < count)).toBe(true);
      const sizes = Array.from({ length: count }, (_, p) => owner.filter((o) => o === p).length);
      for (const size of sizes) expect(size).toBeGreaterThan((0.7 * rows.length) / count);
    });
  }

  it('sends equal keys to the same partition whatever their layout', () => {
    const plain = partitionOfRows(page, [0, 1, 2], 4);
    // The same strings as a dictionary (in another order), the doubles' -0 as 0.
    const values = [...new Set(rows.map((r) => r[0] as string))].reverse();
    const dictionary = varcharColumnOf(VARCHAR, values);
    const indices = Int32Array.from(rows, (r) => values.indexOf(r[0] as string));
    const other = pageFromRows([VARCHAR, BIGINT, DOUBLE], rows.map((r) => [r[0], r[1], r[2] === 0 ? 0 : r[2]]));
    const recoded = { length: other.length, columns: [dictionaryColumn(VARCHAR, indices, dictionary), other.columns[1], other.columns[2]] };
    expect(partitionOfRows(recoded, [0, 1, 2], 4)).toEqual(plain);
    // Rows with equal keys agree within one page too.
    const byKey = new Map<string, number>();
    rows.forEach((r, i) => {
      const key = JSON.stringify([r[0], r[1], Object.is(r[2], -0) ? 0 : r[2]]);
      expect(byKey.get(key) ?? plain[i]).toBe(plain[i]);
      byKey.set(key, plain[i]);
    });
  });
});

describe('a partitioned aggregation stage', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('runs one driver per worker and a tail, and reports its operators as one driver would', async () => {
    const sql = 'select suppkey, count(distinct partkey) as parts from tpch.tiny.lineitem group by suppkey order by parts desc, suppkey';
    const explain = await runQueryOk(server.baseUrl, `EXPLAIN ANALYZE ${sql}`);
    const text = explain.rows.map((r) => String(r[0])).join('\n');
    const root = text.slice(0, text.indexOf('Fragment 1'));
    expect(root).toContain('Drivers: 3');
    // The input counted once (every partition reads it all), the groups of both partitions, the sort over them.
    expect(root).toMatch(/ExchangeOperator[^\n]*\n\s*Input: 60175 rows/);
    expect(root).toMatch(/HashAggregationOperator[^\n]*\n\s*Input: 60175 rows \([^)]*\), Output: 100 rows/);
    expect(root).toMatch(/OrderByOperator[^\n]*\n\s*Input: 100 rows/);
    const rows = (await runQueryOk(server.baseUrl, sql)).rows;
    expect(rows).toHaveLength(100);
    expect(new Set(rows.map((r) => r[0])).size).toBe(100);
  });
});
