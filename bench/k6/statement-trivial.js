// k6: SELECT 1 through the statement protocol (POST + nextUri following) from many virtual users.
//   k6 run bench/k6/statement-trivial.js
//   k6 run -e BASE_URL=http://127.0.0.1:8080 -e VUS=32 -e DURATION=30s bench/k6/statement-trivial.js
// Thresholds are issue #4's targets for a 2-core machine: p99 of a whole query ≤ 10 ms, no failures.
import { check } from 'k6';
import { runStatement } from './statement.js';

export const options = {
  scenarios: {
    trivial: {
      executor: 'constant-vus',
      vus: Number(__ENV.VUS || 32),
      duration: __ENV.DURATION || '30s',
    },
  },
  thresholds: {
    statement_query_duration: ['p(99)<=10'],
    statement_queries_failed: ['count==0'],
    checks: ['rate==1'],
  },
  summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(99)', 'max'],
};

export default function () {
  const rows = runStatement('SELECT 1', { name: 'select1' });
  check(rows, { 'SELECT 1 returns [[1]]': (r) => r !== null && r.length === 1 && r[0][0] === 1 });
}
