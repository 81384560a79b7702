// EXPLAIN ANALYZE lists each fragment's operators with their own statistics, also for a streaming
// exchange stage whose joins run as drivers of their own and whose tail (projections, LIMIT) runs
// on the coordinator: the joins' drivers end with a TaskOutput entry of their own, which must not
// shift the tail's statistics onto the wrong operators.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQueryOk, startServer, type TestServer } from './support/server.js';

describe('EXPLAIN ANALYZE of a streaming stage with joins and an inline tail', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('shows the LIMIT with its own input and output, and the task output after it', async () => {
    // The UNION ALL makes the join's probe side an exchange: the join runs in stage 0.
    const sql =
      'select u.k + 1 as k1, n.name from (select nationkey as k from tpch.tiny.customer union all select nationkey from tpch.tiny.supplier) u ' +
      'join tpch.tiny.nation n on u.k = n.nationkey where u.k > 3 limit 10';
    const explain = await runQueryOk(server.baseUrl, `EXPLAIN ANALYZE ${sql}`);
    const text = explain.rows.map((r) => String(r[0])).join('\n');
    const root = text.slice(0, text.indexOf('Fragment 1'));
    expect(root).toMatch(/LookupJoinOperator/);
    const limit = /LimitOperator[^\n]*\n\s*Input: (\d+) rows[^\n]*Output: (\d+) rows/.exec(root);
    expect(limit).not.toBeNull();
    expect(Number(limit![1])).toBeGreaterThan(10);
    expect(Number(limit![2])).toBe(10);
    expect(root).toMatch(/TaskOutputOperator[^\n]*\n\s*Input: 10 rows[^\n]*Output: 10 rows/);
    expect((await runQueryOk(server.baseUrl, sql)).rows).toHaveLength(10);
  });
});
