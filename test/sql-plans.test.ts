// Plan choices that matter for speed, asserted on EXPLAIN's text (results are checked elsewhere
// against DuckDB; these guard against a choice silently disappearing).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuery, startServer, type TestServer } from './support/server.js';

describe('plan choices', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const plan = async (sql: string, disabledRules?: string): Promise<string> => {
    const r = await runQuery(server.baseUrl, `explain (type distributed) ${sql}`, disabledRules === undefined ? undefined : { 'X-Trino-Session': `disabled_rules=${disabledRules}` });
    expect(r.error?.message).toBeUndefined();
    return r.rows.map((row) => String(row[0])).join('\n');
  };

  it('a LEFT JOIN with a much smaller preserved side hashes that side and emits its unmatched rows afterwards', async () => {
    const text = await plan('select c.custkey, count(o.orderkey) from customer c left join orders o on c.custkey = o.custkey group by c.custkey');
    expect(text).toMatch(/then unmatched rows of left join \d+/u);
    expect(text).toMatch(/LookupJoinOperator\[type = INNER/u);
  });

  it('a LEFT JOIN with the larger side preserved probes with it as usual', async () => {
    const text = await plan('select o.orderkey, c.name from orders o left join customer c on c.custkey = o.custkey');
    expect(text).not.toMatch(/unmatched rows of left join/u);
    expect(text).toMatch(/LookupJoinOperator\[type = LEFT/u);
  });

  it('the stage is cut before an ORDER BY that the unmatched rows must also pass', async () => {
    const text = await plan('select c.custkey, o.orderkey from customer c left join orders o on c.custkey = o.custkey order by 1, 2 limit 5');
    const stage = text.split(/\n(?=Fragment )/u).find((f) => f.includes('unmatched rows of left join')) ?? '';
    expect(stage).not.toBe('');
    expect(stage).not.toMatch(/OrderBy|TopN|Limit/u);
  });

  it('a join group hashes the rows joined so far and streams a much larger table through them (Q9 at sf1: orders probes)', async () => {
    const text = await plan(`select n.name, extract(year from o.orderdate), sum(l.extendedprice)
      from tpch.sf1.part p, tpch.sf1.supplier s, tpch.sf1.lineitem l, tpch.sf1.partsupp ps, tpch.sf1.orders o, tpch.sf1.nation n
      where s.suppkey = l.suppkey and ps.suppkey = l.suppkey and ps.partkey = l.partkey and p.partkey = l.partkey
        and o.orderkey = l.orderkey and s.nationkey = n.nationkey and p.name like '%green%' group by 1, 2`);
    expect(text).toMatch(/TableScanOperator\[table = tpch.sf1.orders[^\n]*\n\s*└─ LookupJoinOperator\[type = INNER/u);
    // Without the selective part filter the joined lineitem rows are the larger side: orders is hashed.
    const unfiltered = await plan(`select o.orderdate, sum(l.extendedprice) from tpch.sf1.lineitem l, tpch.sf1.orders o where o.orderkey = l.orderkey group by 1`);
    expect(unfiltered).toMatch(/TableScanOperator\[table = tpch.sf1.orders[^\n]*\n\s*└─ TaskOutputOperator/u);
  });

  it('equal columns through a third table join customer with nation (and region) before orders (Q5)', async () => {
    const text = await plan(`select n.name, sum(l.extendedprice * (1 - l.discount)) from tpch.sf1.customer c, tpch.sf1.orders o, tpch.sf1.lineitem l,
        tpch.sf1.supplier s, tpch.sf1.nation n, tpch.sf1.region r
      where c.custkey = o.custkey and l.orderkey = o.orderkey and l.suppkey = s.suppkey and c.nationkey = s.nationkey
        and s.nationkey = n.nationkey and n.regionkey = r.regionkey and r.name = 'ASIA'
        and o.orderdate >= date '1994-01-01' and o.orderdate < date '1995-01-01' group by n.name`);
    // customer's scan probes nation's table (whose own build is the ASIA region) ...
    expect(text).toMatch(/TableScanOperator\[table = tpch.sf1.customer[^\n]*\n\s*└─ LookupJoinOperator\[type = INNER/u);
    // ... and supplier, its nation already known from the customer's, joins on two keys and is not joined with nation itself.
    expect(text).toMatch(/LookupJoinOperator\[type = INNER, build = \d+, probeKeys = \[#\d+, #\d+\]/u);
    expect(text.match(/TableScanOperator\[table = tpch.sf1.nation/gu)?.length).toBe(1);
  });

  it('GROUP BY a primary key plus columns of the same row hashes the key alone', async () => {
    const text = await plan('select c.custkey, c.name, c.comment, n.name, count(*) from customer c join nation n on c.nationkey = n.nationkey group by c.custkey, c.name, c.comment, n.name');
    expect(text).toMatch(/HashAggregationOperator\[step = \w+, keys = \[#\d+, #\d+\], aggregates = \[count_star, arbitrary, arbitrary\]\]/u);
  });

  it('GROUP BY without the whole primary key keeps every key', async () => {
    const text = await plan('select l.orderkey, l.shipmode, count(*) from lineitem l group by l.orderkey, l.shipmode');
    expect(text).not.toMatch(/arbitrary/u);
  });

  it('a correlated subquery aggregates only the keys its outer relation keeps after its IN filter (semi-join reduction)', async () => {
    const text = await plan(`select ps.suppkey from partsupp ps
      where ps.partkey in (select p.partkey from part p where p.name like 'forest%')
        and ps.availqty > (select 0.5 * sum(l.quantity) from lineitem l where l.partkey = ps.partkey and l.suppkey = ps.suppkey)`);
    const stage = text.split(/\n(?=Fragment )/u).find((f) => f.includes('tpch.tiny.lineitem')) ?? '';
    expect(stage).toMatch(/LookupJoinOperator\[type = SEMI[^\n]*\n[\s\S]*HashAggregationOperator\[step = PARTIAL/u);
  });

  it('the reduction is applied to the relation that provides the key, before the subquery joins others (Q2)', async () => {
    const text = await plan(`select p.partkey from part p where p.size = 15 and p.type like '%BRASS'
      and p.retailprice > (select min(ps.supplycost) from partsupp ps, supplier s where ps.suppkey = s.suppkey and s.nationkey < 10 and ps.partkey = p.partkey)`);
    const stage = text.split(/\n(?=Fragment )/u).find((f) => f.includes('tpch.tiny.partsupp')) ?? '';
    expect(stage).toMatch(/TableScanOperator\[table = tpch.tiny.partsupp[^\n]*\n\s*└─ LookupJoinOperator\[type = SEMI[^\n]*\n\s*└─ LookupJoinOperator\[type = INNER/u);
  });

  it('without a join on its way the reduction stays above a filter of the subquery (Q20: the shipdate range first)', async () => {
    const text = await plan(`select ps.suppkey from partsupp ps
      where ps.partkey in (select p.partkey from part p where p.name like 'forest%')
        and ps.availqty > (select 0.5 * sum(l.quantity) from lineitem l where l.partkey = ps.partkey and l.suppkey = ps.suppkey
          and l.shipdate >= date '1994-01-01' and l.shipdate < date '1995-01-01')`);
    const stage = text.split(/\n(?=Fragment )/u).find((f) => f.includes('tpch.tiny.lineitem')) ?? '';
    expect(stage).toMatch(/FilterAndProjectOperator\[filter = [^\n]*\n\s*└─ LookupJoinOperator\[type = SEMI/u);
  });

  it('a correlated subquery over an unfiltered outer relation is not reduced', async () => {
    const text = await plan('select ps.suppkey from partsupp ps where ps.availqty > (select sum(l.quantity) from lineitem l where l.partkey = ps.partkey)');
    const stage = text.split(/\n(?=Fragment )/u).find((f) => f.includes('tpch.tiny.lineitem')) ?? '';
    expect(stage).toMatch(/HashAggregationOperator/u);
    expect(stage).not.toMatch(/SEMI/u);
  });

  it('an aggregation over facts is computed before joining dimensions on their key (eager aggregation)', async () => {
    const text = await plan(`select c.custkey, c.name, n.name, sum(l.extendedprice) from customer c, orders o, lineitem l, nation n
      where c.custkey = o.custkey and l.orderkey = o.orderkey and c.nationkey = n.nationkey and o.orderdate < date '1993-01-01'
      group by c.custkey, c.name, n.name`);
    const fragments = text.split(/\n(?=Fragment )/u);
    const lineitem = fragments.find((f) => f.includes('tpch.tiny.lineitem')) ?? '';
    expect(lineitem).toMatch(/HashAggregationOperator\[step = PARTIAL, keys = \[#0\], aggregates = \[sum\]\]/u);
    expect(lineitem).not.toMatch(/varchar/u);
    const customer = fragments.find((f) => f.includes('tpch.tiny.customer')) ?? '';
    expect(customer).toMatch(/LookupJoinOperator/u);
    expect(customer).not.toMatch(/HashAggregationOperator/u);
  });

  it('a filtered dimension is joined before the aggregation as usual', async () => {
    const text = await plan(`select c.custkey, c.name, count(*) from customer c join orders o on o.custkey = c.custkey where c.mktsegment = 'BUILDING' group by c.custkey, c.name`);
    const orders = text.split(/\n(?=Fragment )/u).find((f) => f.includes('tpch.tiny.orders')) ?? '';
    expect(orders).toMatch(/LookupJoinOperator[\s\S]*HashAggregationOperator\[step = PARTIAL/u);
  });

  it('a grouping on the column splits are partitioned by finishes in the scan stage', async () => {
    const text = await plan('select l.orderkey, sum(l.quantity) from lineitem l group by l.orderkey having sum(l.quantity) > 300');
    const scan = text.split(/\n(?=Fragment )/u).find((f) => f.includes('tpch.tiny.lineitem')) ?? '';
    expect(scan).toMatch(/HashAggregationOperator\[step = SINGLE/u);
    expect(text).not.toMatch(/step = (PARTIAL|FINAL)/u);
  });

  it('a join after a grouping finished in the scan stage runs after an exchange (the scan waits for none of its builds)', async () => {
    const text = await plan(`select ps.partkey, sum(ps.supplycost) v from partsupp ps group by ps.partkey
      having sum(ps.supplycost) > (select 0.001 * sum(supplycost) from partsupp)`);
    const fragments = text.split(/\n(?=Fragment )/u);
    const grouping = fragments.find((f) => /tpch.tiny.partsupp, columns = \[0, 3\]/u.test(f) && f.includes('step = SINGLE')) ?? '';
    expect(grouping).not.toBe('');
    expect(grouping).not.toMatch(/builds:|LookupJoinOperator/u);
    expect(fragments.some((f) => f.includes('ExchangeOperator') && f.includes('LookupJoinOperator'))).toBe(true);
  });

  it('a WITH query used twice is planned once: its scan and its final aggregation are stages read by both uses (Q15)', async () => {
    const text = await plan(`with r as (select suppkey, sum(extendedprice) revenue from lineitem where shipdate >= date '1996-01-01' group by suppkey)
      select s.suppkey, r.revenue from supplier s, r where s.suppkey = r.suppkey and r.revenue = (select max(revenue) from r)`);
    expect(text.match(/tpch\.tiny\.lineitem/gu)).toHaveLength(1);
    const fragments = text.split(/\n(?=Fragment )/u);
    const idOf = (f: string | undefined): string | undefined => (f === undefined ? undefined : /^Fragment (\d+)/u.exec(f)?.[1]);
    const readers = (id: string | undefined): number => text.match(new RegExp(`ExchangeOperator\\[sources = \\[${id}\\]\\]`, 'gu'))?.length ?? 0;
    const scan = idOf(fragments.find((f) => f.includes('tpch.tiny.lineitem')));
    // The partial states go to one final aggregation, whose groups both uses read.
    expect(readers(scan)).toBe(1);
    const final = idOf(fragments.find((f) => f.includes(`ExchangeOperator[sources = [${scan}]]`) && f.includes('step = FINAL')));
    expect(final).toBeDefined();
    expect(readers(final)).toBe(2);
    expect(text.match(/HashAggregationOperator\[step = FINAL/gu)).toHaveLength(1);
  });

  it('a total over the same rows as a grouped aggregation is rolled up from its groups, which are computed once (Q11)', async () => {
    const grouped = `select ps.partkey, sum(ps.supplycost * ps.availqty) from partsupp ps, supplier s where ps.suppkey = s.suppkey and s.nationkey = 7 group by ps.partkey`;
    const total = (where: string): string => `(select sum(ps.supplycost * ps.availqty) * 0.001 from partsupp ps, supplier s where ps.suppkey = s.suppkey and ${where})`;
    const text = await plan(`${grouped} having sum(ps.supplycost * ps.availqty) > ${total('s.nationkey = 7')}`);
    // One scan and join of partsupp, its groups read by the HAVING and summed for the total.
    expect(text.match(/TableScanOperator\[table = tpch\.tiny\.partsupp/gu)).toHaveLength(1);
    expect(text.match(/TableScanOperator\[table = tpch\.tiny\.supplier/gu)).toHaveLength(1);
    const groups = /^Fragment (\d+)/u.exec(text.split(/\n(?=Fragment )/u).find((f) => f.includes('tpch.tiny.partsupp')) ?? '')?.[1];
    expect(text.match(new RegExp(`ExchangeOperator\\[sources = \\[${groups}\\]\\]`, 'gu'))).toHaveLength(2);
    // Over other rows the total is computed from them.
    const other = await plan(`${grouped} having sum(ps.supplycost * ps.availqty) > ${total('s.nationkey = 8')}`);
    expect(other.match(/TableScanOperator\[table = tpch\.tiny\.partsupp/gu)).toHaveLength(2);
    // And with the rule off.
    const off = await plan(`${grouped} having sum(ps.supplycost * ps.availqty) > ${total('s.nationkey = 7')}`, 'roll_up_aggregations');
    expect(off.match(/TableScanOperator\[table = tpch\.tiny\.partsupp/gu)).toHaveLength(2);
  });

  it('a global aggregation of DISTINCT values of one argument groups by it on every worker first (distinct_to_group_by)', async () => {
    const sql = 'select count(distinct partkey), sum(distinct partkey) from lineitem where quantity > 10';
    const text = await plan(sql);
    const scan = text.split(/\n(?=Fragment )/u).find((f) => f.includes('TableScanOperator[table = tpch.tiny.lineitem')) ?? '';
    expect(scan).toMatch(/HashAggregationOperator\[step = PARTIAL, keys = \[#0\], aggregates = \[\]\]/u);
    expect(text).toMatch(/AggregationOperator\[step = SINGLE, keys = \[\], aggregates = \[count, sum\]\]/u);
    // Different arguments, a grouped aggregation, or the rule off: the DISTINCT aggregates see every row in one task.
    for (const [other, off] of [
      ['select count(distinct partkey), count(distinct suppkey) from lineitem', undefined],
      ['select suppkey, count(distinct partkey) from lineitem group by suppkey', undefined],
      [sql, 'distinct_to_group_by'],
    ] as const) {
      const t = await plan(other, off);
      const s = t.split(/\n(?=Fragment )/u).find((f) => f.includes('TableScanOperator[table = tpch.tiny.lineitem')) ?? '';
      expect(s).not.toMatch(/HashAggregationOperator/u);
    }
  });

  it('constant projections over VALUES become the VALUES rows (merge_project_with_values); random() stays a projection', async () => {
    for (const sql of ["select 1, 'a' || 'b', 2 + 3", "values (1, 'x'), (2, 'y')"]) {
      const text = await plan(sql);
      expect(text).not.toMatch(/FilterAndProjectOperator/u);
      expect(await plan(sql, 'merge_project_with_values')).toMatch(/FilterAndProjectOperator/u);
    }
    expect(await plan('select random(), 1')).toMatch(/FilterAndProjectOperator/u);
  });

  it('a subquery with random() is not shared (each use draws its own values)', async () => {
    const text = await plan('select count(*) from (select random() r from nation) a, (select random() r from nation) b where a.r < b.r');
    expect(text.match(/tpch\.tiny\.nation/gu)).toHaveLength(2);
  });

  const q17 = `select sum(l.extendedprice) from sf1.lineitem l, sf1.part p where p.partkey = l.partkey and p.brand = 'Brand#23' and p.container = 'MED BOX'
      and l.quantity < (select 0.2 * avg(l2.quantity) from sf1.lineitem l2 where l2.partkey = p.partkey)`;

  it('a semi join into unique keys reuses the inner join over the same rows, computed once (Q17: lineitem scanned and probed once)', async () => {
    const text = await plan(q17);
    const fragments = text.split(/\n(?=Fragment )/u);
    const scans = fragments.filter((f) => f.includes('TableScanOperator[table = tpch.sf1.lineitem'));
    expect(scans).toHaveLength(1);
    const id = scans[0].match(/^Fragment (\d+)/u)?.[1];
    // Its rows go to the per-part average and to the comparison with it.
    expect(text.match(new RegExp(`ExchangeOperator\\[sources = \\[${id}\\]\\]`, 'gu'))).toHaveLength(2);
    expect(scans[0]).not.toMatch(/type = SEMI/u);
    // A semi join into keys that are not unique (lineitem's partkey) stays one.
    const notUnique = await plan(`select count(*) from part p, lineitem l where p.partkey = l.partkey and p.partkey in (select l2.partkey from lineitem l2)`);
    expect(notUnique).toMatch(/type = SEMI/u);
  });

  it('a join whose build scans a large table waits after an exchange once earlier joins left few probe rows (Q17 planned with two lineitem scans: they overlap)', async () => {
    // At sf1 (planned, not run): the rule weighs table sizes.
    const text = await plan(q17, 'semi_joins_from_joins');
    const fragments = text.split(/\n(?=Fragment )/u);
    const scans = fragments.filter((f) => f.includes('TableScanOperator[table = tpch.sf1.lineitem'));
    expect(scans).toHaveLength(2);
    // Neither lineitem scan waits for a build that reads lineitem: each depends on part alone.
    const partStage = fragments.find((f) => f.includes('tpch.sf1.part,'))?.match(/^Fragment (\d+)/u)?.[1];
    expect(partStage).toBeDefined();
    for (const scan of scans) {
      const builds = [...scan.matchAll(/<- fragment (\d+)/gu)].map((m) => m[1]);
      expect(builds.every((b) => b === partStage)).toBe(true);
    }
  });


  it('the rule counts partsupp (800k rows at sf1) as large: Q2\'s two partsupp scans overlap', async () => {
    const text = await plan(
      `select s.acctbal, ps.partkey from sf1.part p, sf1.supplier s, sf1.partsupp ps
      where p.partkey = ps.partkey and s.suppkey = ps.suppkey and p.size = 15 and p.type like '%BRASS'
        and ps.supplycost = (select min(ps2.supplycost) from sf1.partsupp ps2, sf1.supplier s2 where p.partkey = ps2.partkey and s2.suppkey = ps2.suppkey)`,
      'semi_joins_from_joins',
    );
    const fragments = text.split(/\n(?=Fragment )/u);
    const scans = fragments.filter((f) => f.includes('TableScanOperator[table = tpch.sf1.partsupp'));
    expect(scans).toHaveLength(2);
    // No partsupp scan waits for a build whose stage (or its inputs) reads partsupp.
    const readsPartsupp = (id: string, seen = new Set<string>()): boolean => {
      if (seen.has(id)) return false;
      seen.add(id);
      const f = fragments.find((x) => x.startsWith(`Fragment ${id} `)) ?? '';
      if (f.includes('tpch.sf1.partsupp')) return true;
      return [...f.matchAll(/(?:<- fragment |sources = \[)(\d+)/gu)].some((m) => readsPartsupp(m[1], seen));
    };
    for (const scan of scans) {
      const builds = [...scan.matchAll(/<- fragment (\d+)/gu)].map((m) => m[1]);
      expect(builds.some((b) => readsPartsupp(b))).toBe(false);
    }
  });
  it('a grouping on other columns is partial per split and final after an exchange', async () => {
    const text = await plan('select l.suppkey, sum(l.quantity) from lineitem l group by l.suppkey');
    expect(text).toMatch(/step = PARTIAL/u);
    expect(text).toMatch(/step = FINAL/u);
  });

  it('distinct-value counts make an equality on a 150-value column more selective than a date range (probe part first)', async () => {
    const text = await plan(`select count(*) from lineitem l, part p, orders o, customer c, nation n, region r
      where l.partkey = p.partkey and l.orderkey = o.orderkey and o.custkey = c.custkey and c.nationkey = n.nationkey and n.regionkey = r.regionkey
      and r.name = 'AMERICA' and p.type = 'ECONOMY ANODIZED STEEL' and o.orderdate between date '1995-01-01' and date '1996-12-31'`);
    const fragments = text.split(/\n(?=Fragment )/u);
    const partFragment = /^Fragment (\d+)/u.exec(fragments.find((f) => f.includes('tpch.tiny.part')) ?? '')?.[1];
    const lineitem = fragments.find((f) => f.includes('tpch.tiny.lineitem')) ?? '';
    const partJoin = new RegExp(`join (\\d+) <- fragment ${partFragment}\\b`, 'u').exec(lineitem)?.[1];
    expect(partJoin).toBeDefined();
    const firstProbe = /LookupJoinOperator\[type = INNER, build = (\d+)/u.exec(lineitem)?.[1];
    expect(firstProbe).toBe(partJoin);
  });

  it('a projection after a filter that only passes columns through is folded into the filter (one kernel reads the scan)', async () => {
    const text = await plan(`select sum(extendedprice * discount) from lineitem
      where shipdate >= date '1994-01-01' and shipdate < date '1995-01-01' and discount between 0.05 and 0.07 and quantity < 24`);
    const scan = text.split(/\n(?=Fragment )/u).find((f) => f.includes('tpch.tiny.lineitem')) ?? '';
    expect(scan.match(/FilterAndProjectOperator/gu)).toHaveLength(1);
    expect(scan).toMatch(/FilterAndProjectOperator\[filter = [^\n]*projections = \[multiply\(/u);
  });

  describe('the disabled_rules session property', () => {
    const q10 = `select c.custkey, c.name, sum(l.extendedprice) from customer c, orders o, lineitem l
      where c.custkey = o.custkey and l.orderkey = o.orderkey group by c.custkey, c.name`;
    const withRules = async (rules: string, sql: string) => runQuery(server.baseUrl, sql, { 'X-Trino-Session': `disabled_rules=${rules}` });

    it('switches eager aggregation off (the customer stage then aggregates after its join) and answers the same rows', async () => {
      const off = await withRules('eager_aggregation', `explain (type distributed) ${q10}`);
      expect(off.error).toBeUndefined();
      const lineitem = (off.rows.map((r) => String(r[0])).join('\n').split(/\n(?=Fragment )/u).find((f) => f.includes('tpch.tiny.lineitem')) ?? '');
      expect(lineitem).toMatch(/LookupJoinOperator[\s\S]*HashAggregationOperator/u);
      const on = await plan(q10);
      expect(on).not.toBe(off.rows.map((r) => String(r[0])).join('\n'));
      // Sums of doubles may differ in their last bits: the two plans add the same values in other groupings.
      const byKey = (rows: unknown[][]) => new Map(rows.map((r) => [r[0], r]));
      const a = await withRules('eager_aggregation,prune_columns', q10);
      const b = await runQuery(server.baseUrl, q10);
      expect(a.error).toBeUndefined();
      expect(a.rows.length).toBeGreaterThan(100);
      expect(a.rows.length).toBe(b.rows.length);
      const other = byKey(b.rows);
      for (const row of a.rows) {
        const twin = other.get(row[0]);
        expect(twin, String(row[0])).toBeDefined();
        row.forEach((v, i) => {
          if (typeof v === 'number') expect(Math.abs(v - (twin![i] as number))).toBeLessThanOrEqual(1e-9 * Math.abs(v));
          else expect(twin![i]).toEqual(v);
        });
      }
    });

    it('fails the query with INVALID_SESSION_PROPERTY for an unknown rule', async () => {
      const r = await withRules('no_such_rule', 'select 1');
      expect(r.error?.errorName).toBe('INVALID_SESSION_PROPERTY');
      expect(r.error?.errorCode).toBe(14);
      expect(r.error?.message).toMatch(/unknown rule 'no_such_rule'/u);
    });

    it('is listed by SHOW SESSION with its current value', async () => {
      const r = await withRules('fold_constants', 'show session');
      expect(r.rows).toContainEqual(['disabled_rules', 'fold_constants', '', 'varchar', expect.stringContaining('eager_aggregation')]);
    });
  });
});
