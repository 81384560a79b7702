// End-to-end: the memory catalog's write statements through the real server — CREATE/DROP SCHEMA,
// CREATE TABLE [AS], INSERT, DELETE, DROP TABLE — with Trino's updateType/updateCount and `rows`
// answer, data visible to later queries (joins with tpch too), atomic failures, concurrent INSERTs
// and Trino's error codes.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffResults } from './support/duckdb.js';
import { runQuery, runQueryOk, startServer, type QueryOutcome, type StatementAnswer, type TestServer } from './support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server?.close();
});

const MEMORY = { 'X-Engine-Catalog': 'memory', 'X-Engine-Schema': 'default' };

function sql(text: string): Promise<QueryOutcome> {
  return runQuery(server.baseUrl, text, MEMORY);
}

/** Runs a statement that must succeed; returns its outcome. */
function ok(text: string): Promise<QueryOutcome> {
  return runQueryOk(server.baseUrl, text, MEMORY);
}

async function rows(text: string): Promise<unknown[][]> {
  return (await ok(text)).rows;
}

function last(r: QueryOutcome): StatementAnswer & { updateCount?: number } {
  return r.answers.at(-1) as StatementAnswer & { updateCount?: number };
}

async function fails(text: string, name: string, code: number, message?: string | RegExp): Promise<NonNullable<StatementAnswer['error']>> {
  const r = await sql(text);
  const answer = last(r);
  expect(answer.stats.state, text).toBe('FAILED');
  expect(r.error?.errorName, `${text}: ${r.error?.message}`).toBe(name);
  expect(r.error?.errorCode).toBe(code);
  if (typeof message === 'string') expect(r.error?.message).toBe(message);
  else if (message) expect(r.error?.message).toMatch(message);
  return r.error as NonNullable<StatementAnswer['error']>;
}

/** updateType/updateCount and the single `rows` bigint row, as Trino answers a write. */
function expectRowCount(r: QueryOutcome, updateType: string, count: number): void {
  expect(r.error).toBeUndefined();
  expect(r.columns?.map((c) => [c.name, c.type])).toEqual([['rows', 'bigint']]);
  expect(r.rows).toEqual([[count]]);
  expect(last(r).updateType).toBe(updateType);
  expect(last(r).updateCount).toBe(count);
  // Every answer that carries the row carries the count too.
  for (const a of r.answers as (StatementAnswer & { updateCount?: number })[]) if (a.data) expect(a.updateCount).toBe(count);
}

/** DDL: no rows, no count, empty columns, the statement's updateType. */
function expectDdl(r: QueryOutcome, updateType: string): void {
  expect(r.error).toBeUndefined();
  expect(r.rows).toEqual([]);
  expect(r.columns).toEqual([]);
  expect(last(r).updateType).toBe(updateType);
  expect(last(r).updateCount).toBeUndefined();
  expect(last(r).stats.state).toBe('FINISHED');
}

describe('schemas', () => {
  it('CREATE SCHEMA, IF NOT EXISTS, SHOW SCHEMAS, DROP SCHEMA', async () => {
    expectDdl(await ok('CREATE SCHEMA s1'), 'CREATE SCHEMA');
    expectDdl(await ok('CREATE SCHEMA IF NOT EXISTS s1'), 'CREATE SCHEMA');
    expectDdl(await ok('CREATE SCHEMA memory.s2'), 'CREATE SCHEMA');
    expect(await rows('SHOW SCHEMAS FROM memory')).toEqual([['default'], ['information_schema'], ['s1'], ['s2']]);
    await fails('CREATE SCHEMA s1', 'SCHEMA_ALREADY_EXISTS', 49, "line 1:1: Schema 'memory.s1' already exists");
    await fails('CREATE SCHEMA tpch.x', 'NOT_SUPPORTED', 13, 'line 1:1: This connector does not support creating schemas');
    await fails('CREATE SCHEMA nosuch.x', 'CATALOG_NOT_FOUND', 44);
    expectDdl(await ok('DROP SCHEMA s2'), 'DROP SCHEMA');
    expectDdl(await ok('DROP SCHEMA IF EXISTS s2'), 'DROP SCHEMA');
    await fails('DROP SCHEMA s2', 'SCHEMA_NOT_FOUND', 45, "line 1:1: Schema 'memory.s2' does not exist");
    await ok('CREATE TABLE s1.t (a integer)');
    await fails('DROP SCHEMA s1', 'SCHEMA_NOT_EMPTY', 34, "line 1:1: Cannot drop non-empty schema 's1'");
    expectDdl(await ok('DROP SCHEMA s1 CASCADE'), 'DROP SCHEMA');
    await fails('SELECT * FROM s1.t', 'SCHEMA_NOT_FOUND', 45);
  });

  it('USE memory.<schema> then unqualified names', async () => {
    await ok('CREATE SCHEMA used');
    const use = await runQuery(server.baseUrl, 'USE memory.used', {});
    expect(use.headers.at(-1)?.get('x-engine-set-schema')).toBe('used');
    await ok('CREATE TABLE used.u (x bigint)');
    await ok('INSERT INTO memory.used.u VALUES (7)');
    expect((await runQuery(server.baseUrl, 'SELECT x FROM u', { 'X-Engine-Catalog': 'memory', 'X-Engine-Schema': 'used' })).rows).toEqual([[7]]);
  });
});

describe('tables', () => {
  it('CREATE TABLE with every type; INSERT VALUES; the data reads back', async () => {
    expectDdl(
      await ok('CREATE TABLE every (b boolean, t tinyint, s smallint, i integer, l bigint, r real, d double, m decimal(12,2), v varchar(10), u varchar, dt date, ts timestamp)'),
      'CREATE TABLE',
    );
    expect(await rows('DESCRIBE every')).toEqual([
      ['b', 'boolean', '', ''],
      ['t', 'tinyint', '', ''],
      ['s', 'smallint', '', ''],
      ['i', 'integer', '', ''],
      ['l', 'bigint', '', ''],
      ['r', 'real', '', ''],
      ['d', 'double', '', ''],
      ['m', 'decimal(12,2)', '', ''],
      ['v', 'varchar(10)', '', ''],
      ['u', 'varchar', '', ''],
      ['dt', 'date', '', ''],
      ['ts', 'timestamp(3)', '', ''],
    ]);
    const insert = await ok(
      "INSERT INTO every VALUES (true, 1, 2, 3, 4, 1.5, 2.25, 12.34, 'héllo', 'x', DATE '2024-02-29', TIMESTAMP '2024-02-29 10:11:12.345'), " +
        '(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), ' +
        "(false, -128, -32768, -2147483648, 9007199254740991, -0.5, 1e300, -0.01, '', 'long text here', DATE '1970-01-01', TIMESTAMP '1969-12-31 23:59:59')",
    );
    expectRowCount(insert, 'INSERT', 3);
    expect(await rows('SELECT * FROM every ORDER BY i NULLS LAST')).toEqual([
      [false, -128, -32768, -2147483648, 9007199254740991, -0.5, 1e300, '-0.01', '', 'long text here', '1970-01-01', '1969-12-31 23:59:59.000'],
      [true, 1, 2, 3, 4, 1.5, 2.25, '12.34', 'héllo', 'x', '2024-02-29', '2024-02-29 10:11:12.345'],
      [null, null, null, null, null, null, null, null, null, null, null, null],
    ]);
    expect(await rows('SELECT count(*), count(b), sum(i), max(v) FROM memory.default.every')).toEqual([[3, 2, -2147483645, 'héllo']]);
  });

  it('INSERT with a column list fills the rest with NULL; coerces to the column types', async () => {
    await ok('CREATE TABLE coerce (a bigint, b double, c decimal(10,3), d varchar(5), e timestamp, f integer)');
    expectRowCount(await ok("INSERT INTO coerce (d, a) VALUES ('ab', 1)"), 'INSERT', 1);
    // integer → bigint, integer → double, decimal(3,2) → decimal(10,3), varchar(2) → varchar(5), date → timestamp, double → integer.
    expectRowCount(await ok("INSERT INTO coerce VALUES (2, 3, 1.25, 'xy', DATE '2020-05-06', 2.6e0)"), 'INSERT', 1);
    expect(await rows('SELECT * FROM coerce ORDER BY a')).toEqual([
      [1, null, null, 'ab', null, null],
      [2, 3, '1.250', 'xy', '2020-05-06 00:00:00.000', 3],
    ]);
    // Trailing spaces beyond the length are cut silently, as in Trino.
    await ok("INSERT INTO coerce (a, d) VALUES (3, 'abc    ')");
    expect(await rows('SELECT d, length(d) FROM coerce WHERE a = 3')).toEqual([['abc  ', 5]]);
  });

  it('IF NOT EXISTS, duplicates, unknown types, missing schema, other catalogs', async () => {
    await ok('CREATE TABLE dup (a integer)');
    expectDdl(await ok('CREATE TABLE IF NOT EXISTS dup (b varchar)'), 'CREATE TABLE');
    expect(await rows('DESCRIBE dup')).toEqual([['a', 'integer', '', '']]);
    await fails('DESCRIBE x.memory.default.dup', 'SYNTAX_ERROR', 1, /Too many dots in table name: x\.memory\.default\.dup$/u);
    await fails('SHOW CREATE VIEW x.memory.default.dup', 'TABLE_NOT_FOUND', 46);
    await fails('CREATE TABLE dup (a integer)', 'TABLE_ALREADY_EXISTS', 50, "line 1:1: Table 'memory.default.dup' already exists");
    await fails('CREATE TABLE dup2 (a integer, A bigint)', 'DUPLICATE_COLUMN_NAME', 54, "line 1:1: Column name 'a' specified more than once");
    await fails('CREATE TABLE badtype (a integr)', 'TYPE_NOT_FOUND', 43, "line 1:23: Unknown type 'integr' for column 'a'");
    await fails('CREATE TABLE nope.t (a integer)', 'SCHEMA_NOT_FOUND', 45, "line 1:1: Schema 'nope' does not exist");
    await fails('CREATE TABLE tpch.tiny.t (a integer)', 'NOT_SUPPORTED', 13, 'line 1:1: This connector does not support creating tables');
    await fails('CREATE TABLE arr (a array(integer))', 'NOT_SUPPORTED', 13);
    expect(await rows("SELECT table_name FROM memory.information_schema.tables WHERE table_schema = 'default' AND table_name LIKE 'dup%'")).toEqual([['dup']]);
  });

  it('DROP TABLE [IF EXISTS]', async () => {
    await ok('CREATE TABLE gone (a integer)');
    await ok('INSERT INTO gone VALUES (1)');
    expectDdl(await ok('DROP TABLE gone'), 'DROP TABLE');
    await fails('SELECT * FROM gone', 'TABLE_NOT_FOUND', 46, "line 1:15: Table 'memory.default.gone' does not exist");
    await fails('DROP TABLE gone', 'TABLE_NOT_FOUND', 46, "line 1:1: Table 'memory.default.gone' does not exist");
    expectDdl(await ok('DROP TABLE IF EXISTS gone'), 'DROP TABLE');
    await fails('DROP TABLE tpch.tiny.nation', 'NOT_SUPPORTED', 13, 'line 1:1: This connector does not support dropping tables');
    // A dropped name can be created again, empty.
    await ok('CREATE TABLE gone (b varchar)');
    expect(await rows('SELECT count(*) FROM gone')).toEqual([[0]]);
  });
});

describe('CREATE TABLE AS and INSERT ... SELECT', () => {
  it('CTAS from tpch.tiny keeps names, types and rows; joins with tpch', async () => {
    const r = await ok('CREATE TABLE nation AS SELECT * FROM tpch.tiny.nation');
    expectRowCount(r, 'CREATE TABLE', 25);
    expect(await rows('DESCRIBE nation')).toEqual((await runQuery(server.baseUrl, 'DESCRIBE tpch.tiny.nation')).rows);
    expect(await rows('SELECT * FROM nation ORDER BY nationkey')).toEqual((await runQuery(server.baseUrl, 'SELECT * FROM tpch.tiny.nation ORDER BY nationkey')).rows);
    const joined = await rows('SELECT r.name, count(*) FROM nation n JOIN tpch.tiny.region r ON n.regionkey = r.regionkey GROUP BY r.name ORDER BY 1');
    expect(joined).toEqual([['AFRICA', 5], ['AMERICA', 5], ['ASIA', 5], ['EUROPE', 5], ['MIDDLE EAST', 5]]);
  });

  it('CTAS of a large table runs on the pool and matches the source', async () => {
    expectRowCount(await ok('CREATE TABLE lineitem AS SELECT * FROM tpch.tiny.lineitem'), 'CREATE TABLE', 60175);
    const agg = 'SELECT returnflag, linestatus, count(*), sum(quantity), sum(extendedprice), min(shipdate), max(comment) FROM %s GROUP BY 1, 2 ORDER BY 1, 2';
    // Double sums merge in a different order over other page layouts: equal to 1e-9 relative.
    expect(diffResults(await rows(agg.replace('%s', 'lineitem')), (await runQuery(server.baseUrl, agg.replace('%s', 'tpch.tiny.lineitem'))).rows, true)).toBeUndefined();
    const join = 'SELECT o.orderpriority, count(*) FROM %s l JOIN tpch.tiny.orders o ON l.orderkey = o.orderkey WHERE l.receiptdate > l.commitdate GROUP BY 1 ORDER BY 1';
    expect(await rows(join.replace('%s', 'lineitem'))).toEqual((await runQuery(server.baseUrl, join.replace('%s', 'tpch.tiny.lineitem'))).rows);
  });

  it('CTAS with column aliases, expressions, WITH NO DATA, IF NOT EXISTS', async () => {
    expectRowCount(await ok('CREATE TABLE ctas1 (k, total) AS SELECT orderstatus, sum(totalprice) FROM tpch.tiny.orders GROUP BY orderstatus'), 'CREATE TABLE', 3);
    expect(await rows('DESCRIBE ctas1')).toEqual([['k', 'varchar(1)', '', ''], ['total', 'double', '', '']]);
    expectRowCount(await ok('CREATE TABLE ctas2 AS SELECT custkey, name AS customer FROM tpch.tiny.customer WITH NO DATA'), 'CREATE TABLE', 0);
    expect(await rows('DESCRIBE ctas2')).toEqual([['custkey', 'bigint', '', ''], ['customer', 'varchar(25)', '', '']]);
    expect(await rows('SELECT count(*) FROM ctas2')).toEqual([[0]]);
    expectRowCount(await ok('CREATE TABLE IF NOT EXISTS ctas2 AS SELECT 1 AS x'), 'CREATE TABLE', 0);
    await fails('CREATE TABLE ctas2 AS SELECT 1 AS x', 'TABLE_ALREADY_EXISTS', 50, "line 1:1: Destination table 'memory.default.ctas2' already exists");
    await fails('CREATE TABLE ctas3 AS SELECT 1', 'MISSING_COLUMN_NAME', 55, 'line 1:1: Column name not specified at position 1');
    await fails('CREATE TABLE ctas3 AS SELECT 1 AS a, 2 AS a', 'DUPLICATE_COLUMN_NAME', 54);
    await fails('CREATE TABLE ctas3 AS SELECT NULL AS a', 'COLUMN_TYPE_UNKNOWN', 60, 'line 1:1: Column type is unknown: a');
    await fails('CREATE TABLE ctas3 (a) AS SELECT 1 AS x, 2 AS y', 'MISMATCHED_COLUMN_ALIASES', 61);
    await fails('CREATE TABLE ctas3 AS SELECT nosuch FROM tpch.tiny.nation', 'COLUMN_NOT_FOUND', 47, "line 1:30: Column 'nosuch' cannot be resolved");
    await fails('SELECT * FROM ctas3', 'TABLE_NOT_FOUND', 46);
  });

  it('INSERT ... SELECT from tpch.tiny and from itself', async () => {
    await ok('CREATE TABLE cust (custkey bigint, name varchar(25), acctbal double, segment varchar(10))');
    const [[building]] = (await runQuery(server.baseUrl, "SELECT count(*) FROM customer WHERE mktsegment = 'BUILDING'")).rows as number[][];
    const [[rich]] = (await runQuery(server.baseUrl, "SELECT count(*) FROM customer WHERE mktsegment = 'BUILDING' AND acctbal > 9000")).rows as number[][];
    expect(rich).toBeGreaterThan(0);
    expectRowCount(await ok("INSERT INTO cust SELECT custkey, name, acctbal, mktsegment FROM tpch.tiny.customer WHERE mktsegment = 'BUILDING'"), 'INSERT', building);
    expectRowCount(await ok('INSERT INTO cust (custkey, name) SELECT custkey + 100000, name FROM cust WHERE acctbal > 9000'), 'INSERT', rich);
    expect(await rows('SELECT count(*), count(segment), min(custkey) > 100000 FROM cust WHERE custkey > 100000')).toEqual([[rich, 0, true]]);
    expect(await rows('SELECT count(*) FROM cust')).toEqual([[building + rich]]);
    // Zero rows: a count of 0, nothing appended.
    expectRowCount(await ok('INSERT INTO cust SELECT * FROM cust WHERE custkey < 0'), 'INSERT', 0);
  });
});

describe('DELETE', () => {
  it('with and without WHERE; NULL predicates keep the row', async () => {
    await ok('CREATE TABLE del AS SELECT orderkey, orderstatus, totalprice, CASE WHEN orderkey % 7 = 0 THEN NULL ELSE orderkey % 3 END AS k FROM tpch.tiny.orders');
    const [[total]] = (await rows('SELECT count(*) FROM del')) as number[][];
    const [[matching]] = (await rows('SELECT count(*) FROM del WHERE k = 1')) as number[][];
    expectRowCount(await ok('DELETE FROM del WHERE k = 1'), 'DELETE', matching);
    expect(await rows('SELECT count(*), count(*) FILTER (WHERE k IS NULL) > 0 FROM del')).toEqual([[total - matching, true]]);
    expectRowCount(await ok('DELETE FROM del WHERE k = 1'), 'DELETE', 0);
    const [[f]] = (await rows("SELECT count(*) FROM del WHERE orderstatus = 'F' AND totalprice > 100000")) as number[][];
    expectRowCount(await ok("DELETE FROM memory.default.del WHERE orderstatus = 'F' AND totalprice > 100000"), 'DELETE', f);
    expectRowCount(await ok('DELETE FROM del'), 'DELETE', total - matching - f);
    expect(await rows('SELECT count(*) FROM del')).toEqual([[0]]);
    await ok('INSERT INTO del VALUES (1, \'O\', 1.5, 2)');
    expect(await rows('SELECT * FROM del')).toEqual([[1, 'O', 1.5, 2]]);
  });

  it('errors', async () => {
    await fails('DELETE FROM nosuch', 'TABLE_NOT_FOUND', 46, "line 1:13: Table 'memory.default.nosuch' does not exist");
    await fails('DELETE FROM tpch.tiny.nation WHERE nationkey = 1', 'NOT_SUPPORTED', 13, /does not support modifying table rows/);
    await ok('CREATE TABLE del2 (a integer)');
    await fails('DELETE FROM del2 WHERE b = 1', 'COLUMN_NOT_FOUND', 47, "line 1:24: Column 'b' cannot be resolved");
    await fails('DELETE FROM del2 WHERE a', 'TYPE_MISMATCH', 58);
  });
});

describe('TRUNCATE TABLE and ALTER TABLE', () => {
  it('TRUNCATE empties a table, which stays writable', async () => {
    await ok('CREATE TABLE tr AS SELECT nationkey, name FROM tpch.tiny.nation');
    expectDdl(await ok('TRUNCATE TABLE tr'), 'TRUNCATE TABLE');
    expect(await rows('SELECT count(*) FROM tr')).toEqual([[0]]);
    await ok("INSERT INTO tr VALUES (1, 'x')");
    expect(await rows('SELECT * FROM tr')).toEqual([[1, 'x']]);
    await fails('TRUNCATE TABLE nosuch', 'TABLE_NOT_FOUND', 46);
    await fails('TRUNCATE TABLE tpch.tiny.nation', 'NOT_SUPPORTED', 13, /does not support truncating tables/);
  });

  it('RENAME TO keeps the rows, in the same schema unless the new name says otherwise; IF EXISTS; clashes', async () => {
    await ok('CREATE TABLE ren AS SELECT regionkey, name FROM tpch.tiny.region');
    expectDdl(await ok('ALTER TABLE ren RENAME TO ren2'), 'RENAME TABLE');
    expect(await rows('SELECT count(*) FROM ren2')).toEqual([[5]]);
    await fails('SELECT * FROM ren', 'TABLE_NOT_FOUND', 46);
    await ok('CREATE SCHEMA memory.other');
    // Run from another session schema: an unqualified new name stays in the table's own schema.
    const elsewhere = await runQuery(server.baseUrl, 'ALTER TABLE memory.default.ren2 RENAME TO ren3', { 'X-Engine-Catalog': 'tpch', 'X-Engine-Schema': 'tiny' });
    expect(elsewhere.error).toBeUndefined();
    expect(await rows('SELECT count(*) FROM memory.default.ren3')).toEqual([[5]]);
    expectDdl(await ok('ALTER TABLE ren3 RENAME TO other.ren4'), 'RENAME TABLE');
    expect(await rows('SELECT max(name) FROM memory.other.ren4')).toEqual([['MIDDLE EAST']]);
    expectDdl(await ok('ALTER TABLE IF EXISTS nosuch RENAME TO x'), 'RENAME TABLE');
    await fails('ALTER TABLE nosuch RENAME TO x', 'TABLE_NOT_FOUND', 46);
    await ok('CREATE TABLE taken (a bigint)');
    await fails('ALTER TABLE memory.other.ren4 RENAME TO default.taken', 'TABLE_ALREADY_EXISTS', 50);
    await fails('ALTER TABLE taken RENAME TO tpch.tiny.x', 'NOT_SUPPORTED', 13, /across catalogs/);
    await fails('ALTER TABLE tpch.tiny.nation RENAME TO x', 'NOT_SUPPORTED', 13, /does not support renaming tables/);
  });

  it('ADD COLUMN: existing rows read NULL in it, new rows fill it; IF NOT EXISTS; clashes; other forms refused', async () => {
    await ok('CREATE TABLE addc AS SELECT nationkey FROM tpch.tiny.nation');
    expectDdl(await ok('ALTER TABLE addc ADD COLUMN note varchar(10)'), 'ADD COLUMN');
    expect(await rows('SELECT count(*), count(note) FROM addc')).toEqual([[25, 0]]);
    await ok("INSERT INTO addc VALUES (99, 'new')");
    expect(await rows('SELECT nationkey, note FROM addc WHERE note IS NOT NULL')).toEqual([[99, 'new']]);
    expect((await rows('DESCRIBE addc')).map((r) => r.slice(0, 2))).toEqual([['nationkey', 'bigint'], ['note', 'varchar(10)']]);
    await fails('ALTER TABLE addc ADD COLUMN note bigint', 'COLUMN_ALREADY_EXISTS', 51);
    expectDdl(await ok('ALTER TABLE addc ADD COLUMN IF NOT EXISTS note bigint'), 'ADD COLUMN');
  });

  it('DROP COLUMN and RENAME COLUMN keep the other columns and the rows; IF EXISTS; errors', async () => {
    await ok('CREATE TABLE dc AS SELECT nationkey, name, regionkey FROM tpch.tiny.nation');
    expectDdl(await ok('ALTER TABLE dc DROP COLUMN name'), 'DROP COLUMN');
    expect(await rows('SELECT * FROM dc WHERE nationkey = 3')).toEqual([[3, 1]]);
    await ok('INSERT INTO dc VALUES (100, 9)');
    expectDdl(await ok('ALTER TABLE dc RENAME COLUMN regionkey TO region'), 'RENAME COLUMN');
    expect(await rows('SELECT count(*), max(region) FROM dc')).toEqual([[26, 9]]);
    await fails('SELECT regionkey FROM dc', 'COLUMN_NOT_FOUND', 47);
    expectDdl(await ok('ALTER TABLE dc DROP COLUMN IF EXISTS nosuch'), 'DROP COLUMN');
    expectDdl(await ok('ALTER TABLE dc RENAME COLUMN IF EXISTS nosuch TO x'), 'RENAME COLUMN');
    await fails('ALTER TABLE dc DROP COLUMN nosuch', 'COLUMN_NOT_FOUND', 47, "line 1:1: Column 'nosuch' does not exist");
    await fails('ALTER TABLE dc RENAME COLUMN region TO nationkey', 'COLUMN_ALREADY_EXISTS', 51);
    await ok('ALTER TABLE dc DROP COLUMN region');
    await fails('ALTER TABLE dc DROP COLUMN nationkey', 'NOT_SUPPORTED', 13, 'line 1:1: Cannot drop the only column in a table');
    await fails('ALTER TABLE dc ALTER COLUMN nationkey SET DATA TYPE integer', 'NOT_SUPPORTED', 13, /ALTER TABLE \.\.\. ALTER COLUMN is not supported/);
  });
});

describe('views', () => {
  it('CREATE [OR REPLACE] VIEW, read like a table, listed, described; names resolve in the creating session', async () => {
    // Created from the tpch session: its unqualified nation resolves to tpch.tiny.nation wherever it is read.
    const created = await runQuery(server.baseUrl, 'CREATE VIEW memory.default.per_region AS SELECT regionkey, count(*) AS n FROM nation GROUP BY regionkey', { 'X-Engine-Catalog': 'tpch', 'X-Engine-Schema': 'tiny' });
    expectDdl(created, 'CREATE VIEW');
    expect(await rows('SELECT * FROM per_region ORDER BY regionkey')).toEqual([[0, 5], [1, 5], [2, 5], [3, 5], [4, 5]]);
    expect(await rows('SELECT r.name, v.n FROM per_region v JOIN tpch.tiny.region r ON r.regionkey = v.regionkey ORDER BY 1 LIMIT 1')).toEqual([['AFRICA', 5]]);
    expect(await rows("SHOW TABLES LIKE 'per%'")).toEqual([['per_region']]);
    expect((await rows('DESCRIBE per_region')).map((r) => r.slice(0, 2))).toEqual([['regionkey', 'bigint'], ['n', 'bigint']]);
    expect(await rows("SELECT table_type FROM information_schema.tables WHERE table_name = 'per_region'")).toEqual([['VIEW']]);
    await fails('CREATE VIEW per_region AS SELECT 1 AS x', 'TABLE_ALREADY_EXISTS', 50);
    expectDdl(await ok('CREATE OR REPLACE VIEW per_region AS SELECT regionkey, name FROM tpch.tiny.region'), 'CREATE VIEW');
    // The same statement text again: the plan is not reused across a replaced definition.
    expect(await rows('SELECT * FROM per_region ORDER BY regionkey LIMIT 1')).toEqual([[0, 'AFRICA']]);
    expectDdl(await ok('CREATE VIEW over_view AS SELECT * FROM per_region WHERE regionkey > 2'), 'CREATE VIEW');
    expect(await rows('SELECT count(*) FROM over_view')).toEqual([[2]]);
    expect(await rows('SHOW CREATE VIEW over_view')).toEqual([['CREATE VIEW memory.default.over_view AS\nSELECT * FROM per_region WHERE regionkey > 2']]);
    await fails('SHOW CREATE VIEW nosuch', 'TABLE_NOT_FOUND', 46);
    expect(await rows("SELECT table_name, view_definition FROM information_schema.views WHERE table_name = 'over_view'")).toEqual([['over_view', 'SELECT * FROM per_region WHERE regionkey > 2']]);
  });

  it('refuses unnamed columns, writes into views, clashes with tables; a view over a dropped table is stale', async () => {
    await fails('CREATE VIEW unnamed AS SELECT 1', 'MISSING_COLUMN_NAME', 55);
    await ok('CREATE TABLE vbase AS SELECT nationkey FROM tpch.tiny.nation');
    await ok('CREATE VIEW vover AS SELECT nationkey FROM vbase');
    await fails('INSERT INTO vover VALUES (1)', 'NOT_SUPPORTED', 13, /views are read-only/);
    await fails('CREATE TABLE vover (a bigint)', 'TABLE_ALREADY_EXISTS', 50);
    await fails('CREATE VIEW vbase AS SELECT 1 AS x', 'TABLE_ALREADY_EXISTS', 50);
    await ok('DROP TABLE vbase');
    await fails('SELECT * FROM vover', 'INVALID_VIEW', 11, /View 'memory.default.vover' is stale or in invalid state/);
    expectDdl(await ok('DROP VIEW vover'), 'DROP VIEW');
    await fails('DROP VIEW vover', 'TABLE_NOT_FOUND', 46);
    expectDdl(await ok('DROP VIEW IF EXISTS vover'), 'DROP VIEW');
    await fails('CREATE VIEW tpch.tiny.v AS SELECT 1 AS x', 'NOT_SUPPORTED', 13, /does not support creating views/);
    await ok('CREATE SCHEMA memory.withview');
    await ok('CREATE VIEW memory.withview.v AS SELECT 1 AS x');
    await fails('DROP SCHEMA memory.withview', 'SCHEMA_NOT_EMPTY', 34);
    await ok('DROP SCHEMA memory.withview CASCADE');
  });
});

describe('atomicity and concurrency', () => {
  it('a failing INSERT writes nothing', async () => {
    await ok('CREATE TABLE atomic (a integer, b varchar(3))');
    await ok("INSERT INTO atomic VALUES (1, 'a')");
    await fails('INSERT INTO atomic (a) VALUES (1), (2), (3e9)', 'NUMERIC_VALUE_OUT_OF_RANGE', 19, 'Out of range for integer: 3.0E9');
    await fails("INSERT INTO atomic (b) VALUES ('ok'), ('abcd')", 'GENERIC_USER_ERROR', 0, 'Cannot truncate non-space characters when casting from varchar(4) to varchar(3) on INSERT');
    await fails("INSERT INTO atomic VALUES ('x', 'y')", 'TYPE_MISMATCH', 58, 'line 1:1: Insert query has mismatched column types: Table: [integer, varchar(3)], Query: [varchar(1), varchar(1)]');
    await fails('INSERT INTO atomic VALUES (1)', 'TYPE_MISMATCH', 58, 'line 1:1: Insert query has mismatched column types: Table: [integer, varchar(3)], Query: [integer]');
    await fails('INSERT INTO atomic (a, nosuch) VALUES (1, 2)', 'COLUMN_NOT_FOUND', 47, 'line 1:1: Insert column name does not exist in target table: nosuch');
    await fails('INSERT INTO atomic (a, a) VALUES (1, 2)', 'DUPLICATE_COLUMN_NAME', 54);
    // A failure in the middle of a large SELECT (some splits already produced rows).
    await fails('INSERT INTO atomic (a) SELECT CASE WHEN orderkey > 50000 THEN CAST(1 / (linenumber - linenumber) AS integer) ELSE 1 END FROM tpch.tiny.lineitem', 'DIVISION_BY_ZERO', 8);
    await fails('INSERT INTO atomic (a) SELECT CAST(orderkey * 100000 AS integer) FROM tpch.tiny.lineitem', 'NUMERIC_VALUE_OUT_OF_RANGE', 19);
    await fails('INSERT INTO nosuch VALUES (1)', 'TABLE_NOT_FOUND', 46, "line 1:1: Table 'memory.default.nosuch' does not exist");
    await fails('INSERT INTO tpch.tiny.nation SELECT * FROM tpch.tiny.nation', 'NOT_SUPPORTED', 13, 'line 1:1: This connector does not support inserts');
    expect(await rows('SELECT * FROM atomic')).toEqual([[1, 'a']]);
  });

  it('a canceled INSERT ... SELECT writes nothing', async () => {
    await ok('CREATE TABLE canceled (k bigint)');
    const post = await fetch(`${server.baseUrl}/v1/statement`, {
      method: 'POST',
      body: 'INSERT INTO canceled SELECT l.orderkey FROM tpch.tiny.lineitem l CROSS JOIN tpch.tiny.nation n',
      headers: { 'X-Engine-User': 'test', ...MEMORY },
    });
    const first = (await post.json()) as StatementAnswer;
    expect((await fetch(first.nextUri as string, { method: 'DELETE' })).status).toBe(204);
    // Follow the query to its end: canceled, and the table still empty.
    let answer = first;
    for (let token = 1; answer.nextUri; token++) {
      const res = await fetch(`${server.baseUrl}/v1/statement/${first.id}/${token}`);
      if (res.status !== 200) break;
      answer = (await res.json()) as StatementAnswer;
    }
    const info = (await (await fetch(`${server.baseUrl}/v1/query/${first.id}`)).json()) as { state: string; errorCode?: { name: string } };
    expect(info.state).toBe('FAILED');
    expect(info.errorCode?.name).toBe('USER_CANCELED');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await rows('SELECT count(*) FROM canceled')).toEqual([[0]]);
  });

  it('20 concurrent INSERTs of 10 rows each lose nothing', async () => {
    await ok('CREATE TABLE conc (writer integer, n integer)');
    const inserts = Array.from({ length: 20 }, (_, w) => sql(`INSERT INTO conc VALUES ${Array.from({ length: 10 }, (_, n) => `(${w}, ${n})`).join(', ')}`));
    const outcomes = await Promise.all(inserts);
    for (const r of outcomes) expectRowCount(r, 'INSERT', 10);
    expect(await rows('SELECT count(*), count(DISTINCT writer), sum(n) FROM conc')).toEqual([[200, 20, 20 * 45]]);
  });

  it('INSERTs racing a DELETE keep every appended row', async () => {
    await ok('CREATE TABLE race AS SELECT orderkey AS k FROM tpch.tiny.orders');
    const deletes = sql('DELETE FROM race WHERE k % 2 = 0');
    const inserts = Array.from({ length: 10 }, (_, i) => sql(`INSERT INTO race VALUES (${-1 - i})`));
    const [del, ...ins] = await Promise.all([deletes, ...inserts]);
    expect(del.error).toBeUndefined();
    for (const r of ins) expectRowCount(r, 'INSERT', 1);
    expect(await rows('SELECT count(*) FILTER (WHERE k < 0), count(*) FILTER (WHERE k > 0 AND k % 2 = 0), count(*) FILTER (WHERE k > 0) FROM race')).toEqual([[10, 0, 7500]]);
  });
});

describe('statements still refused', () => {
  it.each([
    ['UPDATE t SET a = 1', /UPDATE statements are not supported/],
    ['MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE', /MERGE statements are not supported/],
    ['ALTER TABLE t SET PROPERTIES x = 1', /ALTER TABLE \.\.\. SET PROPERTIES is not supported/],
    ['ALTER VIEW v RENAME TO w', /ALTER statements are not supported/],
    ['CREATE TABLE w (a integer) WITH (format = \'ORC\')', /not supported/],
  ])('%s → NOT_SUPPORTED', async (text, message) => {
    await fails(text, 'NOT_SUPPORTED', 13, message);
  });
});

describe('memory limit', () => {
  it('a write beyond --memory-max-data fails and changes nothing', async () => {
    const small = await startServer({ memoryMaxDataBytes: 64 * 1024 });
    try {
      const q = (text: string): Promise<QueryOutcome> => runQuery(small.baseUrl, text, MEMORY);
      expect((await q('CREATE TABLE lim (k bigint, c varchar)')).error).toBeUndefined();
      expect((await q("INSERT INTO lim VALUES (1, 'a')")).error).toBeUndefined();
      const r = await q('INSERT INTO lim SELECT orderkey, comment FROM tpch.tiny.orders');
      expect(r.error).toMatchObject({ errorName: 'GENERIC_INSUFFICIENT_RESOURCES', errorType: 'INSUFFICIENT_RESOURCES', message: 'Memory limit [65536] for memory connector exceeded' });
      expect((await q('CREATE TABLE lim2 AS SELECT * FROM tpch.tiny.orders')).error?.errorName).toBe('GENERIC_INSUFFICIENT_RESOURCES');
      expect((await q('SELECT * FROM lim')).rows).toEqual([[1, 'a']]);
      expect((await q("SHOW TABLES LIKE 'lim%'")).rows).toEqual([['lim']]);
      // Space is given back by DROP.
      expect((await q('DROP TABLE lim')).error).toBeUndefined();
      expect((await q('CREATE TABLE lim3 AS SELECT orderkey FROM tpch.tiny.orders WHERE orderkey < 1000')).error).toBeUndefined();
      // A rename needs no room for a second copy; a new column's NULLs beyond the limit change nothing.
      expect((await q('CREATE TABLE lim4 AS SELECT orderkey, comment FROM tpch.tiny.orders WHERE orderkey <= 4000')).error).toBeUndefined();
      expect((await q('ALTER TABLE lim4 RENAME TO lim5')).error).toBeUndefined();
      expect((await q('SELECT count(*) FROM lim5')).rows).toEqual([[1000]]);
    } finally {
      await small.close();
    }
  });
});
