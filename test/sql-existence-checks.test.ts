// An uncorrelated EXISTS / NOT EXISTS is a semi / anti join without keys: its right side only has
// to show whether it has a row (optimize/limit-existence-checks.ts puts LIMIT 1 on it), and a
// probe row stops at the first build row (hash-join.ts), instead of walking all of them. Plans
// asserted on EXPLAIN, work on EXPLAIN ANALYZE's row counts; answers in
// test/sql/subquery/uncorrelated_exists.slt against DuckDB.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQueryOk, startServer, type TestServer } from './support/server.js';

describe('uncorrelated EXISTS checks one row', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const text = async (sql: string, headers: Record<string, string> = {}): Promise<string> =>
    (await runQueryOk(server.baseUrl, sql, headers)).rows.map((row) => String(row[0])).join('\n');

  it.each(['exists', 'not exists'])('%s over lineitem: the subquery is limited to one row', async (kind) => {
    const plan = await text(`explain select count(*) from orders where ${kind} (select 1 from lineitem where quantity > 10)`);
    expect(plan).toMatch(/(Semi|Anti)Join\[type = (SEMI|ANTI), criteria = \[\]\]/u);
    expect(plan).toMatch(/Limit\[count = 1\][^\n]*\n[^\n]*\n\s*└─ Project\[\]/u);
  });

  it('the semi join reads one build row (EXPLAIN ANALYZE)', async () => {
    const analyzed = await text('explain analyze select count(*) from orders where exists (select 1 from lineitem where quantity > 10)');
    // The LIMIT's output: one row however many lineitems pass the filter.
    expect(analyzed).toMatch(/LimitOperator[^\n]*\n\s*Input: \d+ rows[^\n]*Output: 1 rows/u);
  });

  it('without the LIMIT (rule disabled) each probe row stops at its first build row', { timeout: 20_000 }, async () => {
    // 60,175 lineitems x ~48,000 qualifying ones: some 2.9 billion pairs when every pair is walked.
    const sql = 'select count(*) from lineitem where exists (select 1 from lineitem where quantity > 10)';
    const r = await runQueryOk(server.baseUrl, sql, { 'X-Trino-Session': 'disabled_rules=limit_existence_checks' });
    expect(Number(r.rows[0][0])).toBe(60175);
    const analyzed = await text(`explain analyze ${sql}`, { 'X-Trino-Session': 'disabled_rules=limit_existence_checks' });
    expect(analyzed).not.toMatch(/LimitOperator/u);
  });
});
