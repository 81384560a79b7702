// Shared by the k6 scenarios: one statement through the Trino client protocol, as Trino's own
// clients do it: POST /v1/statement, then GET nextUri until the answer has none.
import http from 'k6/http';
import { Counter, Trend } from 'k6/metrics';

export const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8080';

/** Whole POST + nextUri cycles, from the POST to the last answer. */
export const queryDuration = new Trend('statement_query_duration', true);
export const queriesOk = new Counter('statement_queries_ok');
export const queriesFailed = new Counter('statement_queries_failed');
/** HTTP requests one query took (1 POST + n GETs). */
export const requestsPerQuery = new Trend('statement_requests_per_query');

const MAX_POLLS = 1000;

/**
 * Runs `sql` to completion; returns the rows (or null when it failed). `tags.name` groups the
 * per-query URLs (every nextUri is different) under one name in k6's http_req_* metrics.
 */
export function runStatement(sql, { catalog = 'tpch', schema = 'tiny', name = 'statement' } = {}) {
  const started = Date.now();
  const headers = { 'X-Trino-User': 'k6', 'X-Trino-Source': 'k6', 'X-Trino-Catalog': catalog, 'X-Trino-Schema': schema };
  let res = http.post(`${BASE_URL}/v1/statement`, sql, { headers, tags: { name: `${name} POST /v1/statement` } });
  let requests = 1;
  const rows = [];
  for (;;) {
    if (res.status !== 200) {
      queriesFailed.add(1, { reason: `http ${res.status}` });
      return null;
    }
    const answer = res.json();
    if (answer.data) for (const row of answer.data) rows.push(row);
    if (answer.error) {
      queriesFailed.add(1, { reason: answer.error.errorName });
      return null;
    }
    if (!answer.nextUri) break;
    if (requests > MAX_POLLS) {
      http.del(answer.nextUri, null, { tags: { name: `${name} DELETE nextUri` } });
      queriesFailed.add(1, { reason: 'too many polls' });
      return null;
    }
    res = http.get(answer.nextUri, { tags: { name: `${name} GET nextUri` } });
    requests++;
  }
  queryDuration.add(Date.now() - started, { query: name });
  requestsPerQuery.add(requests);
  queriesOk.add(1, { query: name });
  return rows;
}
