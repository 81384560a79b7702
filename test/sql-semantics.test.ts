// Trino semantics where DuckDB differs (so they cannot be checked differentially): integer
// division truncates, date ± interval stays a date, decimal literals keep their scale.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuery, startServer, type TestServer } from './support/server.js';

describe('Trino-specific semantics', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const one = async (sql: string): Promise<{ row: unknown[]; types: string[] }> => {
    const r = await runQuery(server.baseUrl, sql);
    expect(r.error?.message).toBeUndefined();
    return { row: r.rows[0], types: (r.columns ?? []).map((c) => c.type) };
  };

  it('integer division truncates toward zero and keeps the integer type', async () => {
    expect(await one('select 7 / 2, -7 / 2, 7 % 3, -7 % 3')).toEqual({ row: [3, -3, 1, -1], types: ['integer', 'integer', 'integer', 'integer'] });
  });

  it('DISTINCT inside sum/avg/max holds whatever precedes the statement (the parser sees the text untrimmed)', async () => {
    const sql = "select sum(distinct x), avg(DISTINCT x), count(distinct x), 'sum(distinct x)' from (values (1), (1), (2), (null)) t(x)";
    for (const lead of ['', '  ', '\n\n\t ']) {
      expect((await one(lead + sql)).row).toEqual([3, 1.5, 2, 'sum(distinct x)']);
    }
  });

  it('current_user and current_timezone() are the session\'s, never a cached plan\'s', async () => {
    const sql = 'select current_user, current_timezone(), count(*) from nation where current_user = \'test\'';
    expect((await one(sql)).row).toEqual(['test', 'UTC', 25]);
    const other = await runQuery(server.baseUrl, sql, { 'X-Engine-User': 'someone', 'X-Engine-Time-Zone': 'Europe/Paris' });
    expect(other.rows).toEqual([['someone', 'Europe/Paris', 0]]);
  });

  it('SHOW CREATE TABLE gives the table as a CREATE TABLE statement', async () => {
    expect((await one('show create table tpch.tiny.region')).row).toEqual(['CREATE TABLE tpch.tiny.region (\n   regionkey bigint,\n   name varchar(25),\n   comment varchar(152)\n)']);
    const missing = await runQuery(server.baseUrl, 'show create table nosuch');
    expect(missing.error?.errorName).toBe('TABLE_NOT_FOUND');
  });

  it('date plus an interval is a date, clamped to the month end', async () => {
    expect(await one("select date '1996-01-31' + interval '1' month, date '1996-02-29' + interval '1' year, date '1996-03-01' - interval '1' day")).toEqual({
      row: ['1996-02-29', '1997-02-28', '1996-02-29'],
      types: ['date', 'date', 'date'],
    });
  });

  it('decimal literals and arithmetic keep exact scale', async () => {
    expect(await one('select 1.50, 0.1 + 0.2, 2.5 * 1.10, 10.00 / 3')).toEqual({
      row: ['1.50', '0.3', '2.750', '3.33'],
      types: ['decimal(3,2)', 'decimal(2,1)', 'decimal(5,3)', 'decimal(4,2)'],
    });
  });

  it('NULLIF has its first argument\'s type and value, compared in the common super type', async () => {
    const sql = 'select nullif(partkey, 932.5), nullif(availqty, 1.5e0), nullif(89.5, 78.91), nullif(89.5, 89.50), nullif(availqty, 3325.0), nullif(null, 1) from partsupp where partkey = 1 and suppkey = 2';
    expect(await one(sql)).toEqual({ row: [1, 3325, '89.5', null, null, null], types: ['bigint', 'integer', 'decimal(3,1)', 'decimal(3,1)', 'integer', 'integer'] });
    expect(await one("select nullif(name, 'ALGERIA, AND A LONGER TEXT'), nullif('ab', name) from nation where nationkey = 0")).toEqual({ row: ['ALGERIA', 'ab'], types: ['varchar(25)', 'varchar(2)'] });
  });

  it('COALESCE and CASE over mixed numeric types take the common super type', async () => {
    const acct = 'cast(acctbal as decimal(12,2))';
    const sql = `select coalesce(${acct}, custkey), coalesce(${acct}, cast(1.2345 as decimal(5,4))), case when custkey > 2 then ${acct} else 1e0 end, coalesce(availqty, 1.5), coalesce(cast(1.5 as real), ${acct}) from customer, partsupp where custkey = 1 and partkey = 1 and suppkey = 2`;
    expect(await one(sql)).toEqual({ row: ['711.56', '711.5600', 1, '3325.0', 1.5], types: ['decimal(21,2)', 'decimal(14,4)', 'double', 'decimal(11,1)', 'real'] });
  });

  it('casts round half away from zero and reject bad text', async () => {
    expect((await one("select cast(2.5 as integer), cast(-2.5 as integer), cast('42' as bigint), cast(1 as varchar)")).row).toEqual([3, -3, 42, '1']);
    const bad = await runQuery(server.baseUrl, "select cast('x' as integer)");
    expect(bad.error?.errorName).toBe('INVALID_CAST_ARGUMENT');
  });

  it('NULL propagates through operators and three-valued logic holds', async () => {
    expect((await one('select null + 1, null and false, null or true, null = null, 1 in (2, null), coalesce(null, 3)')).row).toEqual([null, false, true, null, null, 3]);
  });

  it('unnamed columns are _col0, _col1, ...', async () => {
    const r = await runQuery(server.baseUrl, 'select 1, 2 as two, 3');
    expect(r.columns?.map((c) => c.name)).toEqual(['_col0', 'two', '_col2']);
  });
});
