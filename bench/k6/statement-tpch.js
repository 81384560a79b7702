// k6: TPC-H queries through the statement protocol (POST + nextUri following), each virtual user
// picking the next query of the list in turn.
//   k6 run bench/k6/statement-tpch.js                                   # Q1 and Q6 on tpch.tiny
//   k6 run -e SCHEMA=sf1 -e VUS=4 -e DURATION=2m bench/k6/statement-tpch.js
//   k6 run -e QUERY_FILE=../../../shared/tpch/queries/q14.sql bench/k6/statement-tpch.js
// QUERY_FILE is resolved relative to this script (k6's open()). The first queries of a schema also
// generate its data in the server (sf1 takes seconds), so a warm-up stage runs them first.
import { check } from 'k6';
import { runStatement } from './statement.js';

const Q1 = `select l.returnflag, l.linestatus, sum(l.quantity) as sum_qty, sum(l.extendedprice) as sum_base_price,
  sum(l.extendedprice * (1 - l.discount)) as sum_disc_price, sum(l.extendedprice * (1 - l.discount) * (1 + l.tax)) as sum_charge,
  avg(l.quantity) as avg_qty, avg(l.extendedprice) as avg_price, avg(l.discount) as avg_disc, count(*) as count_order
from lineitem l where l.shipdate <= date '1998-12-01' - interval '90' day
group by l.returnflag, l.linestatus order by l.returnflag, l.linestatus`;

const Q6 = `select sum(l.extendedprice * l.discount) as revenue from lineitem l
where l.shipdate >= date '1994-01-01' and l.shipdate < date '1994-01-01' + interval '1' year
  and l.discount between 0.06 - 0.01 and 0.06 + 0.01 and l.quantity < 24`;

/** Drops `--` comment lines and a trailing ';' (the protocol takes one statement without it). */
function clean(sql) {
  return sql
    .split('\n')
    .filter((line) => !/^\s*--/.test(line))
    .join('\n')
    .trim()
    .replace(/;\s*$/, '');
}

const QUERIES = __ENV.QUERY_FILE ? [{ name: __ENV.QUERY_FILE.replace(/^.*\//, '').replace(/\.sql$/, ''), sql: clean(open(__ENV.QUERY_FILE)) }] : [
  { name: 'q01', sql: Q1 },
  { name: 'q06', sql: Q6 },
];
const SCHEMA = __ENV.SCHEMA || 'tiny';

export const options = {
  scenarios: {
    warmup: { executor: 'per-vu-iterations', vus: 1, iterations: QUERIES.length, exec: 'tpch', maxDuration: '10m' },
    tpch: {
      executor: 'constant-vus',
      vus: Number(__ENV.VUS || 8),
      duration: __ENV.DURATION || '30s',
      exec: 'tpch',
      startTime: __ENV.WARMUP_TIME || '20s',
    },
  },
  thresholds: {
    'statement_queries_failed{scenario:tpch}': ['count==0'],
    checks: ['rate==1'],
  },
  summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(99)', 'max'],
};

export function tpch() {
  const q = QUERIES[__ITER % QUERIES.length];
  const rows = runStatement(q.sql, { schema: SCHEMA, name: q.name });
  check(rows, { [`${q.name} returns rows`]: (r) => r !== null && r.length > 0 });
}
