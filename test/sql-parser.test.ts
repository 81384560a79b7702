// The query parser (src/sql/syntax/): the tree it gives for every query of the test corpus against
// the former parser's (node-sql-parser behind text rewrites, kept in test/support/ as the oracle),
// linear time on unbalanced parentheses, a depth limit instead of a stack overflow, Trino's lexical
// rules and error messages, and the forms the former parser refused.

import { describe, expect, it } from 'vitest';
import { EngineError } from '../src/util/engine-error.js';
import { parseQuery, parseStatement } from '../src/sql/parse.js';
import { tokenize } from '../src/sql/syntax/lexer.js';
import { firstDifference, locatedNodes, normalizeAst } from './support/ast-normalize.js';
import { legacyParseQuery } from './support/legacy-sql-parser.js';
import { sqlCorpus } from './support/sql-corpus.js';

/* eslint-disable @typescript-eslint/no-explicit-any */

/** Queries whose tree differs from the former parser's on purpose (a substring of the query, and why). */
const DIFFERENT_ON_PURPOSE: [string, string][] = [
  ['select (select (select (select max(regionkey)', 'the former parser nested the scalar subqueries wrongly (known-bugs/nested_scalar_subquery.slt)'],
  ['cardinality(array_agg(nationkey))', 'array_agg is a plain call, not an aggregate node (not supported either way)'],
  ['localtimestamp is not null', 'localtimestamp is a call node, as current_date (the binder reads both)'],
  ['(SELECT nationkey FROM nation) UNION (SELECT regionkey + 100 FROM region) ORDER BY 1 DESC LIMIT 3', 'the former parser dropped the LIMIT after parenthesized branches'],
  ['(SELECT regionkey, count(*) FROM nation GROUP BY regionkey) UNION', 'the former parser dropped the LIMIT after parenthesized branches'],
  ['(SELECT nationkey FROM nation) EXCEPT (SELECT nationkey FROM nation WHERE nationkey > 2)', 'the former parser dropped the LIMIT after parenthesized branches'],
  ['(SELECT nationkey FROM nation ORDER BY nationkey LIMIT 3) UNION ALL', 'a branch with its own ORDER BY and LIMIT is a derived table'],
  ['FROM ((SELECT nationkey FROM nation) UNION ALL (SELECT regionkey FROM region)) t', 'the former parser made the second branch a second FROM item'],
  ['FROM region EXCEPT (SELECT 1 UNION SELECT 3)', 'the former parser read the parenthesized branch as a second FROM item'],
  ['((SELECT nationkey FROM nation WHERE nationkey < 3)) ORDER BY 1 DESC', 'the former parser dropped the ORDER BY after the parentheses'],
  ['PARTITION BY count(', 'count(…) in a window partition is a call node (the binder reads it as the aggregate either way)'],
];

/** Queries the former parser took that are refused now, with the error that says why. */
const REFUSED_ON_PURPOSE: [string, RegExp][] = [
  ["string_agg(name, ',' order by name)", /NOT_SUPPORTED.*ORDER BY inside an aggregate call/u],
  ["string_agg(name, '|' order by name)", /NOT_SUPPORTED.*ORDER BY inside an aggregate call/u],
  ['array_agg(name order by name)', /NOT_SUPPORTED.*ORDER BY inside an aggregate call/u],
  ['distinct on (regionkey)', /NOT_SUPPORTED.*DISTINCT ON is not supported/u],
  ['limit (select 1)', /SYNTAX_ERROR.*mismatched input '\('\. Expecting: <integer>, 'ALL'/u],
  ["trim(both 'x' from", /NOT_SUPPORTED.*trim\(BOTH/u],
  // A bare `values` (from a test's list of words): the former parser read it as a table name.
  ['values', /^SYNTAX_ERROR: line 1:7: mismatched input '<EOF>'/u],
  // `a, b RIGHT JOIN c` joins b and c first: the analyzer's left-to-right list would answer it wrong.
  ['RIGHT JOIN region a4 ON true', /NOT_SUPPORTED.*RIGHT JOIN after a comma in FROM/u],
  ['FULL JOIN region a4 ON a1.regionkey = a4.regionkey', /NOT_SUPPORTED.*FULL JOIN after a comma in FROM/u],
];

const describeError = (e: unknown): string => (e instanceof EngineError ? `${e.errorName}: ${e.message}` : String(e));

function outcome(parse: (sql: string) => unknown, sql: string): { ast?: unknown; error?: string } {
  try {
    return { ast: parse(sql) };
  } catch (e) {
    return { error: describeError(e) };
  }
}

describe('the parser against the former one over the test corpus', () => {
  const queries = sqlCorpus()
    .map((e) => ({ ...e, sql: e.sql.replace(/[\s;]+$/u, '') }))
    .filter((e) => /^\s*(SELECT|WITH|VALUES|\()/iu.test(e.sql));

  it('reads every query of the corpus', () => {
    expect(queries.length).toBeGreaterThan(1000);
  });

  it('gives the same tree (what the analyzer reads) wherever the former parser gave one', () => {
    const problems: string[] = [];
    let compared = 0;
    for (const q of queries) {
      const old = outcome(legacyParseQuery, q.sql);
      if (old.error) continue;
      const now = outcome(parseQuery, q.sql);
      if (now.error) {
        const accepted = REFUSED_ON_PURPOSE.find(([text]) => q.sql.includes(text));
        if (!accepted || !accepted[1].test(now.error)) problems.push(`${q.where}: now refused: ${now.error}`);
        continue;
      }
      compared++;
      const difference = firstDifference(normalizeAst(old.ast), normalizeAst(now.ast));
      if (difference && !DIFFERENT_ON_PURPOSE.some(([text]) => q.sql.includes(text))) problems.push(`${q.where}: ${difference}`);
    }
    expect(problems).toEqual([]);
    expect(compared).toBeGreaterThan(1000);
  });

  it('locates binary expressions and calls where the former parser did (where its rewrites left offsets alone)', () => {
    const problems: string[] = [];
    for (const q of queries) {
      // These rewrites inserted text: the former locations after them were shifted.
      if (/\b(filter|within|current_user|grouping\s+sets|try_cast|not\s*\(|values)/iu.test(q.sql)) continue;
      if (DIFFERENT_ON_PURPOSE.some(([text]) => q.sql.includes(text))) continue;
      const old = outcome(legacyParseQuery, q.sql);
      const now = outcome(parseQuery, q.sql);
      if (old.error || now.error) continue;
      const located = locatedNodes(now.ast);
      const missing = [...locatedNodes(old.ast)].filter((k) => !located.has(k));
      if (missing.length) problems.push(`${q.where}: ${missing.join(' ')}`);
    }
    expect(problems).toEqual([]);
  });
});

function syntaxError(sql: string): EngineError {
  try {
    parseQuery(sql);
  } catch (e) {
    if (e instanceof EngineError) return e;
    throw e;
  }
  throw new Error(`parsed: ${sql}`);
}

describe('linear time and bounded depth', () => {
  it('refuses 10,000 unbalanced parentheses promptly with a syntax error', () => {
    const e = syntaxError(`SELECT ${'('.repeat(10_000)}1`);
    expect(e.errorName).toBe('SYNTAX_ERROR');
  });

  it('reports an unclosed parenthesis at the end, expecting it', () => {
    const e = syntaxError(`SELECT ${'('.repeat(20)}1`);
    expect(e.errorName).toBe('SYNTAX_ERROR');
    expect(e.message).toMatch(/^line 1:29: mismatched input '<EOF>'\. Expecting: .*'\)'/u);
  });

  it('refuses nesting deeper than its limit with a clear error, not a stack overflow', () => {
    for (const sql of [`SELECT ${'('.repeat(5000)}1${')'.repeat(5000)}`, `SELECT ${'- '.repeat(20_000)}1`, `SELECT ${'NOT '.repeat(5000)}true`, `${'('.repeat(3000)}SELECT 1${')'.repeat(3000)}`]) {
      const e = syntaxError(sql);
      expect(e.errorName).toBe('SYNTAX_ERROR');
      expect(e.message).toMatch(/Statement is too large \(stack overflow while parsing\)/u);
    }
  });

  it('takes balanced nesting within the limit', () => {
    const ast = parseQuery(`SELECT ${'('.repeat(100)}1${')'.repeat(100)}`);
    expect(ast.columns[0].expr).toMatchObject({ type: 'number', value: 1 });
  });

  it('takes long flat expressions (left-deep chains are loops, not recursion)', () => {
    const ast = parseQuery(`SELECT ${Array.from({ length: 20_000 }, (_, i) => String(i)).join(' + ')}`);
    expect(ast.columns[0].expr.type).toBe('binary_expr');
  });
});

describe("Trino's lexical rules", () => {
  it("reads '' as a quote and a backslash as an ordinary character", () => {
    const ast = parseQuery("SELECT 'it''s', 'a\\nb', '\\'");
    expect(ast.columns.map((c: any) => c.expr.value)).toEqual(["it's", 'a\\nb', '\\']);
  });

  it("reads U&'…' escapes, quoted identifiers and comments", () => {
    const ast = parseQuery(`SELECT U&'\\0041b\\+01F600' /* c */, "Mixed ""Q""" -- tail\nFROM t`);
    expect(ast.columns[0].expr.value).toBe('Ab😀');
    expect(ast.columns[1].expr.column.expr.value).toBe('Mixed "Q"');
  });

  it('gives numbers their kinds: integers, decimals (as text) and doubles', () => {
    const ast = parseQuery('SELECT 7, 1.50, .5, 1e3, 9007199254740993, -2147483648');
    expect(ast.columns.map((c: any) => [c.expr.type, c.expr.value])).toEqual([
      ['number', 7],
      ['number', '1.50'],
      ['number', '0.5'],
      ['bigint', '1e3'],
      ['bigint', '9007199254740993'],
      ['number', -2147483648],
    ]);
  });

  it('refuses unterminated strings and comments with a syntax error', () => {
    for (const sql of ["SELECT 'abc", 'SELECT "abc', 'SELECT 1 /* x']) expect(() => tokenize(sql)).toThrow(EngineError);
  });
});

describe("errors in Trino's form", () => {
  it('names the offending token and what could stand there', () => {
    expect(syntaxError('SELECT 1 +').message).toBe("line 1:11: mismatched input '<EOF>'. Expecting: <expression>");
    expect(syntaxError('SELECT * FROM nation WHERE').message).toBe("line 1:27: mismatched input '<EOF>'. Expecting: <expression>");
    expect(syntaxError('SELECT a FROM t GROUP x').message).toBe("line 1:23: mismatched input 'x'. Expecting: 'BY'");
    expect(syntaxError('SELECT a FROM t\nWHERE a = = 1').message).toBe("line 2:11: mismatched input '='. Expecting: <expression>");
  });

  it('refuses forms Trino takes but this engine does not run as NOT_SUPPORTED, naming them', () => {
    for (const [sql, what] of [
      ['SELECT ARRAY[1, 2]', 'ARRAY constructor'],
      ["SELECT X'00'", 'VARBINARY literal'],
      ['SELECT x FROM t CROSS JOIN UNNEST(a)', 'UNNEST'],
      ['SELECT lag(x) IGNORE NULLS OVER (ORDER BY x) FROM t', 'IGNORE NULLS'],
      ['SELECT x FROM t TABLESAMPLE BERNOULLI (10)', 'TABLESAMPLE'],
      ['SELECT x FROM t ORDER BY x FETCH FIRST 2 ROWS WITH TIES', 'WITH TIES'],
      ['SELECT x FROM t GROUP BY DISTINCT x', 'GROUP BY DISTINCT'],
      ['SELECT * FROM t MATCH_RECOGNIZE (PATTERN (a))', 'MATCH_RECOGNIZE'],
      ['SELECT * FROM t FOR VERSION AS OF 3', 'FOR VERSION AS OF'],
      ['SELECT x FROM (a JOIN b USING (k))', 'parenthesized join'],
      ['SELECT * FROM TABLE(sequence(1, 3))', 'Table functions'],
      ['SELECT transform(a, (x, y) -> x) FROM t', 'Lambda expression'],
      ['SELECT f(x).field FROM t', 'Field reference'],
      ["SELECT CAST(x AS timestamp(3) with time zone) FROM t", 'TIMESTAMP WITH TIME ZONE'],
    ]) {
      const e = syntaxError(sql);
      expect(e.errorName, sql).toBe('NOT_SUPPORTED');
      expect(e.message).toContain(what);
    }
  });
});

describe('forms the former parser refused', () => {
  it('puts ORDER BY and LIMIT after parenthesized set operation branches on the set operation (its last branch)', () => {
    const ast = parseQuery('(SELECT nationkey FROM nation) UNION (SELECT regionkey + 100 FROM region) ORDER BY 1 DESC LIMIT 3');
    expect(ast.orderby).toBeNull();
    expect(ast.set_op).toBe('union');
    expect(ast._next.orderby).toEqual([{ expr: { type: 'number', value: 1 }, type: 'DESC', nulls: null }]);
    expect(ast._next.limit).toEqual({ seperator: '', value: [{ type: 'number', value: 3 }] });
  });

  it('makes a branch with its own ORDER BY, LIMIT or set operation a derived table', () => {
    const ast = parseQuery('SELECT 1 UNION (SELECT 2 UNION SELECT 3) EXCEPT ALL (SELECT 4 LIMIT 1)');
    expect(ast.set_op).toBe('union');
    expect(ast._next.from[0].expr.ast.set_op).toBe('union');
    expect(ast._next.set_op).toBe('except all');
    expect(ast._next._next.from[0].expr.ast.limit.value).toEqual([{ type: 'number', value: 4 - 3 }]);
  });

  it('reads WITH before a parenthesized first branch, a comma after JOIN … ON, CASE (expr), IS DISTINCT FROM and frames ending n PRECEDING', () => {
    expect(parseQuery('WITH t AS (SELECT 1 x) (SELECT x FROM t) UNION (SELECT 2)').with).toHaveLength(1);
    expect(parseQuery('SELECT * FROM a JOIN b ON a.k = b.k, c').from.map((f: any) => f.table)).toEqual(['a', 'b', 'c']);
    expect(parseQuery('SELECT CASE (x) WHEN 1 THEN 2 END FROM t').columns[0].expr.expr).toMatchObject({ type: 'column_ref' });
    expect(parseQuery('SELECT a IS NOT DISTINCT FROM b + 1 FROM t').columns[0].expr).toMatchObject({ type: 'binary_expr', operator: 'IS NOT DISTINCT FROM', right: { type: 'binary_expr', operator: '+' } });
    const frame = parseQuery('SELECT sum(x) OVER (PARTITION BY x + 1, 5 ORDER BY x ROWS BETWEEN 3 PRECEDING AND 1 PRECEDING) FROM t').columns[0].expr.over.as_window_specification.window_specification;
    expect(frame.partitionby.map((p: any) => p.expr.type)).toEqual(['binary_expr', 'number']);
    expect(frame.window_frame_clause.right.value.map((b: any) => b.value)).toEqual(['3 PRECEDING', '1 PRECEDING']);
  });

  it('reads grouping(…) as a call though GROUPING is reserved', () => {
    expect(parseQuery('SELECT grouping(a) FROM t GROUP BY ROLLUP (a)').columns[0].expr).toMatchObject({ type: 'function', name: { name: [{ value: 'grouping' }] } });
  });

  it('reads TABLE t and bare VALUES as queries', () => {
    expect(parseStatement('TABLE nation')).toMatchObject({ kind: 'query', ast: { from: [{ table: 'nation' }] } });
    expect(parseQuery('VALUES 1, 2').from[0].expr.values).toHaveLength(2);
  });
});
