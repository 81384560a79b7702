// Every query here runs on our server and on DuckDB over the same tpch.tiny data (the official dbgen
// files), and the results must agree: doubles to 1e-9 relative, row order where ORDER BY fixes it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { diffResults, duckRows, tpchDuckDb } from './support/duckdb.js';
import { runQuery, startServer, type TestServer } from './support/server.js';

interface Case {
  readonly sql: string;
  /** ORDER BY fully determines the row order. */
  readonly ordered?: boolean;
}

const CASES: Case[] = [
  // TPC-H Q1 and Q6 (single-table queries)
  {
    sql: `select returnflag, linestatus, sum(quantity) as sum_qty, sum(extendedprice) as sum_base_price,
            sum(extendedprice * (1 - discount)) as sum_disc_price, sum(extendedprice * (1 - discount) * (1 + tax)) as sum_charge,
            avg(quantity) as avg_qty, avg(extendedprice) as avg_price, avg(discount) as avg_disc, count(*) as count_order
          from lineitem where shipdate <= date '1998-12-01' - interval '90' day
          group by returnflag, linestatus order by returnflag, linestatus`,
    ordered: true,
  },
  {
    sql: `select sum(extendedprice * discount) as revenue from lineitem
          where shipdate >= date '1994-01-01' and shipdate < date '1994-01-01' + interval '1' year
            and discount between 0.06 - 0.01 and 0.06 + 0.01 and quantity < 24`,
  },
  // the filter evaluated inside the aggregation's loop (aggregate-kernels.ts): a global aggregate
  // masks rejected rows (here their arguments are infinite), a grouped one adds them into a trash
  // row; an argument that could fail on a rejected row (integer modulus by zero) keeps filter-first
  { sql: 'select count(*), sum(quantity), avg(quantity), sum(extendedprice / discount), avg(extendedprice / discount) from lineitem where discount > 0.05 and tax < 0.04' },
  { sql: 'select returnflag, linestatus, count(*), sum(tax), avg(tax), min(tax) from lineitem where shipdate <= date \'1998-09-01\' group by returnflag, linestatus order by 1, 2', ordered: true },
  { sql: 'select shipmode, count(*), sum(quantity * 2.5), avg(discount) from lineitem where quantity > 45 group by shipmode order by shipmode', ordered: true },
  { sql: 'select count(*), sum(100 % (linenumber - 1)) from lineitem where linenumber > 1' },
  // a correlated subquery reduced to the outer query's keys, the reduction pushed to the relation
  // providing them: the probe side of an inner join (Q2), either side, the preserved side of a LEFT JOIN
  {
    sql: `select p.partkey, p.retailprice from part p where p.size = 15 and p.type like '%BRASS'
            and p.retailprice > 10 * (select min(ps.supplycost) from partsupp ps, supplier s where ps.suppkey = s.suppkey and s.nationkey < 10 and ps.partkey = p.partkey)
          order by p.partkey`,
    ordered: true,
  },
  {
    sql: `select s.suppkey, s.acctbal from supplier s where s.nationkey = 3
            and s.acctbal > (select avg(ps.supplycost) from part p, partsupp ps where p.partkey = ps.partkey and p.size < 20 and ps.suppkey = s.suppkey)
          order by s.suppkey`,
    ordered: true,
  },
  {
    sql: `select p.partkey, (select count(*) from lineitem l left join orders o on l.orderkey = o.orderkey and o.orderstatus = 'F' where l.partkey = p.partkey and o.orderkey is null) as open_lines
          from part p where p.name like 'forest%' order by p.partkey`,
    ordered: true,
  },
  // semi/anti joins keep or drop probe rows by the ascending match list: with a residual condition
  // a probe row matches several build rows (duplicates), NOT IN over a NULL-free list
  { sql: `select o.orderkey, o.orderpriority from orders o where exists (select 1 from lineitem l where l.orderkey = o.orderkey and l.commitdate < l.receiptdate) order by 1`, ordered: true },
  { sql: `select o.orderkey from orders o where not exists (select 1 from lineitem l where l.orderkey = o.orderkey and l.quantity > 45) order by 1`, ordered: true },
  { sql: `select c.custkey from customer c where c.nationkey not in (select n.nationkey from nation n where n.regionkey = 1) order by 1`, ordered: true },
  // counts and global aggregates on every table
  { sql: 'select count(*) from lineitem' },
  { sql: 'select count(*), sum(totalprice), min(totalprice), max(totalprice), avg(totalprice) from orders' },
  { sql: 'select count(*), min(name), max(name), min(acctbal), max(acctbal) from customer' },
  { sql: 'select count(*), sum(availqty), avg(supplycost) from partsupp' },
  { sql: 'select count(*), max(retailprice), min(size), max(size) from part' },
  { sql: 'select count(*), min(phone), max(address) from supplier' },
  { sql: 'select regionkey, count(*) from nation group by regionkey', ordered: false },
  { sql: 'select * from region order by regionkey', ordered: true },
  { sql: 'select * from nation order by nationkey', ordered: true },
  { sql: 'select min(shipdate), max(shipdate), min(receiptdate), max(commitdate) from lineitem' },
  // filters and projections
  { sql: 'select orderkey, linenumber, quantity from lineitem where quantity > 49 and discount = 0.1 order by orderkey, linenumber', ordered: true },
  { sql: "select custkey, name from customer where mktsegment = 'BUILDING' and acctbal > 9900 order by custkey", ordered: true },
  { sql: "select partkey, name from part where name like '%green%' and size in (1, 5, 10) order by partkey", ordered: true },
  { sql: "select count(*) from part where type like 'PROMO%'" },
  { sql: "select count(*) from part where type not like '%BRASS'" },
  { sql: "select count(*) from orders where comment like '%special%requests%'" },
  { sql: "select count(*) from lineitem where shipmode in ('MAIL', 'SHIP') and receiptdate between date '1994-01-01' and date '1994-12-31'" },
  { sql: 'select count(*) from lineitem where commitdate < receiptdate and shipdate < commitdate' },
  { sql: "select count(*) from orders where orderpriority <> '1-URGENT' and orderpriority <> '2-HIGH'" },
  { sql: 'select count(*) from lineitem where not (quantity < 10 or quantity > 40)' },
  { sql: 'select count(*) from customer where acctbal < 0' },
  // expressions
  { sql: 'select orderkey, extendedprice * (1 - discount) * (1 + tax) as charge from lineitem where orderkey < 100 order by orderkey, linenumber', ordered: true },
  { sql: "select nationkey, upper(name), lower(name), length(name), substr(name, 2, 3), name || '-' || cast(regionkey as varchar) from nation order by nationkey", ordered: true },
  { sql: "select nationkey, replace(name, 'A', 'a'), trim('  x  '), strpos(name, 'A') from nation order by nationkey", ordered: true },
  {
    sql: `select orderkey, case when totalprice > 300000 then 'high' when totalprice > 100000 then 'mid' else 'low' end as band
          from orders where orderkey < 200 order by orderkey`,
    ordered: true,
  },
  { sql: 'select orderkey, year(orderdate), month(orderdate), day(orderdate) from orders where orderkey < 100 order by orderkey', ordered: true },
  { sql: "select orderkey, cast(orderdate + interval '10' day as date), cast(orderdate - interval '1' month as date) from orders where orderkey < 50 order by orderkey", ordered: true },
  { sql: 'select abs(-5), round(2.5), round(-2.5), floor(2.7), ceil(2.1), power(2, 10), sqrt(16.0), mod(17, 5)' },
  { sql: 'select cast(3.7 as integer), cast(-3.5 as bigint), cast(7 as double) / 2, 7 % 3, -7 % 3' },
  { sql: "select coalesce(null, 1), nullif(1, 1), nullif(1, 2), coalesce(cast(null as varchar), 'x')" },
  { sql: "select extract(year from date '1996-02-29'), extract(month from date '1996-02-29'), cast(date '1996-02-29' + interval '1' year as date)" },
  { sql: 'select 1.5 + 2.25, 10.00 * 3, 0.1 + 0.2 = 0.3' },
  // grouping, having, ordering, limits
  { sql: 'select orderstatus, count(*), sum(totalprice) from orders group by orderstatus order by orderstatus', ordered: true },
  { sql: 'select orderpriority, count(*) as c from orders group by orderpriority having count(*) > 2900 order by c desc', ordered: true },
  { sql: 'select shipmode, returnflag, count(*), avg(quantity) from lineitem group by shipmode, returnflag order by shipmode, returnflag', ordered: true },
  { sql: 'select year(orderdate) as y, count(*) from orders group by year(orderdate) order by y', ordered: true },
  { sql: 'select nationkey, count(*) as c, max(acctbal) from customer group by nationkey order by c desc, nationkey limit 5', ordered: true },
  { sql: 'select orderkey, totalprice from orders order by totalprice desc limit 10', ordered: true },
  { sql: 'select orderkey, totalprice from orders order by totalprice desc, orderkey limit 10 offset 5', ordered: true },
  { sql: 'select name, regionkey from nation order by regionkey desc, name asc', ordered: true },
  { sql: 'select distinct regionkey from nation order by regionkey', ordered: true },
  { sql: 'select distinct returnflag, linestatus from lineitem order by 1, 2', ordered: true },
  { sql: 'select custkey from customer order by acctbal desc, custkey limit 3', ordered: true },
  { sql: 'select count(*) filter (where quantity > 25), sum(quantity) filter (where returnflag = \'R\') from lineitem' },
  { sql: 'select bool_and(quantity > 0), bool_or(quantity > 50) from lineitem' },
  { sql: "select count(*) from lineitem where shipinstruct = 'DELIVER IN PERSON' and shipmode = 'AIR'" },
  { sql: 'select sum(quantity), count(*) from lineitem where orderkey between 1000 and 2000' },
  { sql: "select mktsegment, count(*) from customer where phone like '1_-%' group by mktsegment order by mktsegment", ordered: true },
  { sql: 'select sum(l.quantity) from lineitem l where l.tax > 0.05' },
  { sql: 'select x.n from (select name as n, regionkey as r from nation) x where x.r = 3 order by x.n', ordered: true },
  // equal columns through a third table: the implied join (customer with nation) and one key per class
  {
    sql: `select n.name, count(*), sum(c.acctbal) from customer c, supplier s, nation n, region r
          where c.nationkey = s.nationkey and s.nationkey = n.nationkey and n.regionkey = r.regionkey and r.name = 'ASIA' and s.suppkey < 20
          group by n.name order by n.name`,
    ordered: true,
  },
  {
    sql: `select count(*), sum(l.quantity) from lineitem l, partsupp ps, part p, supplier s
          where l.partkey = ps.partkey and ps.partkey = p.partkey and l.suppkey = ps.suppkey and ps.suppkey = s.suppkey and p.size < 10`,
  },
  { sql: 'select count(*) from nation a, nation b, nation c where a.regionkey = b.regionkey and b.regionkey = c.regionkey and a.nationkey < c.nationkey' },
  // predicates over one dictionary column read a per-entry mask (emit.ts dictionaryMask): IN, NOT IN,
  // LIKE, OR of equalities, NOT, inside CASE, and with a NULL in the list (no mask: three-valued)
  {
    sql: `select shipmode, count(*) from lineitem where shipmode not in ('MAIL', 'AIR') and (shipinstruct like 'DELIVER%' or shipinstruct = 'NONE')
          group by shipmode order by shipmode`,
    ordered: true,
  },
  {
    sql: `select sum(case when shipmode in ('MAIL', 'SHIP') then 1 else 0 end), sum(case when not (returnflag = 'R' or linestatus like 'F%') then quantity end),
            count(*) filter (where upper(shipinstruct) <> 'NONE') from lineitem`,
  },
  { sql: "select count(*), sum(quantity) from lineitem where shipmode in ('MAIL', null) and returnflag <> 'A'" },
  { sql: "select count(*) from lineitem where shipmode not in ('MAIL', null)" },
  { sql: "select count(*), sum(case when not (nullif(shipmode, 'MAIL') = 'SHIP') then 1 end) from lineitem where not (nullif(shipmode, 'AIR') <> 'RAIL') or quantity < 2" },
  { sql: "select shipmode, nullif(shipmode, 'MAIL') in ('SHIP', 'MAIL') as b, count(*) from lineitem group by 1, 2 order by 1", ordered: true },
  { sql: "select orderpriority, count(*) from orders where orderpriority > '3' or orderstatus between 'F' and 'O' group by 1 order by 1", ordered: true },
  // an inner join emits a build key from the probe key equal to it (integers, strings; not doubles)
  { sql: 'select c.custkey, o.custkey, count(*), sum(o.totalprice) from orders o join customer c on o.custkey = c.custkey where c.nationkey < 5 group by 1, 2 order by 1', ordered: true },
  { sql: 'select a.name, b.name, a.regionkey + b.regionkey from nation a join nation b on a.name = b.name order by 1', ordered: true },
  { sql: 'select s.acctbal, c.acctbal, count(*) from supplier s join customer c on s.acctbal = c.acctbal group by 1, 2 order by 1', ordered: true },
  { sql: 'select l.orderkey, o.orderkey, l.linenumber from lineitem l join orders o on l.orderkey = o.orderkey where o.totalprice > 400000 order by 1, 3', ordered: true },
  // a grouped aggregation over 32k+ exchanged rows runs hash-partitioned, one driver per worker
  // (partitioned-stage.ts): DISTINCT in one step, final steps, string and NULL keys, HAVING in the
  // partitions, ORDER BY / LIMIT after them
  { sql: 'select suppkey, count(distinct partkey), count(*), sum(quantity) from lineitem group by suppkey' },
  { sql: 'select partkey, suppkey, linenumber, sum(quantity), count(*), max(comment), min(shipdate) from lineitem group by 1, 2, 3 having count(*) > 1' },
  {
    sql: `select case when linenumber > 5 then null else shipmode end as mode, returnflag, count(distinct orderkey), count(distinct suppkey)
          from lineitem group by 1, 2 order by 3 desc, 1 nulls first, 2`,
    ordered: true,
  },
  { sql: 'select partkey, shipdate, sum(extendedprice) as total from lineitem group by partkey, shipdate order by total desc, partkey, shipdate limit 25', ordered: true },
  // an aggregation used twice shares its final step (fragment.ts: repeatedAggregations), read by a
  // join, a scalar subquery and a second aggregation over it
  {
    sql: `with r as (select suppkey, sum(extendedprice * (1 - discount)) as revenue, count(*) as n from lineitem where shipdate >= date '1995-01-01' group by suppkey)
          select a.suppkey, a.revenue, b.n, (select max(revenue) from r) as top, (select sum(n) from r) as rows
          from r a join r b on a.suppkey = b.suppkey where a.revenue > (select avg(revenue) from r) order by a.revenue desc limit 10`,
    ordered: true,
  },
  // EXISTS / NOT EXISTS with `<>` on another column (Q21): a mark join checking the condition in
  // its probe loop; NULLs in the compared columns take the general path
  {
    sql: `select l1.suppkey, count(*) from lineitem l1 where l1.shipdate > date '1996-01-01'
            and exists (select * from lineitem l2 where l2.orderkey = l1.orderkey and l2.suppkey <> l1.suppkey)
            and not exists (select * from lineitem l3 where l3.orderkey = l1.orderkey and l3.suppkey <> l1.suppkey and l3.receiptdate > l3.commitdate)
          group by 1 order by 2 desc, 1 limit 20`,
    ordered: true,
  },
  {
    sql: `select count(*), sum(l1.linenumber) from lineitem l1 where l1.linenumber < 4
            and exists (select * from (select orderkey, nullif(suppkey, 17) as s from lineitem) l2 where l2.orderkey = l1.orderkey and l2.s <> l1.suppkey)`,
  },
  {
    sql: `select count(*) from (select orderkey, nullif(suppkey, 23) as s, linenumber from lineitem) l1
          where exists (select * from lineitem l2 where l2.orderkey = l1.orderkey and l2.suppkey <> l1.s)`,
  },
  // a total over the same rows as a grouped aggregation is rolled up from its groups (Q11):
  // sums, minima and maxima, NULL arguments, a total over no rows, a different WHERE (not rolled
  // up), count (not rolled up: zero over no rows)
  {
    sql: `select ps.partkey, sum(ps.supplycost * ps.availqty) v from partsupp ps, supplier s where ps.suppkey = s.suppkey and s.nationkey = 7 group by ps.partkey
          having sum(ps.supplycost * ps.availqty) > (select sum(ps.supplycost * ps.availqty) * 0.001 from partsupp ps, supplier s where ps.suppkey = s.suppkey and s.nationkey = 7) order by 2 desc, 1`,
    ordered: true,
  },
  {
    sql: `select l.suppkey, max(l.extendedprice), min(nullif(l.quantity, 50)) q from lineitem l where l.shipmode = 'AIR' group by l.suppkey
          having max(l.extendedprice) >= (select max(l.extendedprice) from lineitem l where l.shipmode = 'AIR') * 0.9
              or min(nullif(l.quantity, 50)) = (select min(nullif(l.quantity, 50)) from lineitem l where l.shipmode = 'AIR') order by 1`,
    ordered: true,
  },
  {
    sql: `select n.regionkey, sum(n.nationkey) from nation n where n.name = 'ATLANTIS' group by n.regionkey
          union all select -1, (select sum(n.nationkey) from nation n where n.name = 'ATLANTIS')`,
  },
  {
    sql: `select o.orderpriority, count(*), sum(o.totalprice) from orders o where o.orderstatus = 'F' group by 1
          having sum(o.totalprice) > (select sum(o.totalprice) / 6 from orders o where o.orderstatus = 'O')
             and count(*) > (select count(*) / 5 from orders o where o.orderstatus = 'F') order by 1`,
    ordered: true,
  },
  // a semi join into unique keys answered by the inner join over the same rows (Q17), and one
  // whose build side differs (not reused)
  { sql: `select sum(l.extendedprice), count(*) from lineitem l, part p where p.partkey = l.partkey and p.size < 10 and l.quantity < (select 0.9 * avg(l2.quantity) from lineitem l2 where l2.partkey = p.partkey)` },
  {
    sql: `select p.brand, sum(l.extendedprice), count(*) from lineitem l, part p where p.partkey = l.partkey and p.size < 10
            and l.quantity < (select avg(nullif(l2.quantity, 1)) from lineitem l2 where l2.partkey = p.partkey) group by p.brand order by 1`,
    ordered: true,
  },
  // a join emitting every probe row once, in order, passes the probe's columns on as they are
  { sql: 'select o.orderkey, o.clerk, o.comment, c.name, m.top from orders o join customer c on o.custkey = c.custkey cross join (select max(totalprice) as top from orders) m order by 1 limit 20', ordered: true },
];

describe('SQL results equal DuckDB on tpch.tiny', () => {
  let server: TestServer;
  let duck: DuckDBConnection;

  beforeAll(async () => {
    [server, duck] = await Promise.all([startServer(), tpchDuckDb()]);
  });
  afterAll(async () => {
    await server?.close();
  });

  for (const c of CASES) {
    it(c.sql.replace(/\s+/gu, ' ').slice(0, 110), async () => {
      const [ours, theirs] = await Promise.all([runQuery(server.baseUrl, c.sql), duckRows(duck, c.sql)]);
      expect(ours.error?.message).toBeUndefined();
      expect(diffResults(ours.rows, theirs, c.ordered ?? false)).toBeUndefined();
    });
  }
});
