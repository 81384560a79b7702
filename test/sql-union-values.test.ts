// A UNION ALL of constant rows (SELECT 1 UNION ALL SELECT 2 …) is one VALUES relation
// (optimize/merge-union-values.ts), not a stage per arm: a 3,000-arm statement planned and ran
// 3,000 stages, each one task. Asserted on EXPLAIN; the rows against the arms themselves.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQueryOk, startServer, type TestServer } from './support/server.js';

describe('UNION ALL of constant rows', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('its arms become one VALUES relation, one stage', async () => {
    const arms = Array.from({ length: 500 }, (_, i) => `select ${i}, 'x${i % 7}'`);
    const plan = await runQueryOk(server.baseUrl, `explain (type distributed) ${arms.join(' union all ')}`);
    const text = plan.rows.map((r) => String(r[0])).join('\n');
    expect(text.match(/^Fragment /gmu)).toHaveLength(1);
    const r = await runQueryOk(server.baseUrl, arms.join(' union all '));
    expect(r.rows.map((row) => `${String(row[0])}:${String(row[1])}`).sort()).toEqual(arms.map((_, i) => `${i}:x${i % 7}`).sort());
  });

  it('constant arms merge beside a table arm, which keeps its own rows', async () => {
    const r = await runQueryOk(server.baseUrl, 'select 100 union all select nationkey from nation where nationkey < 3 union all select 200');
    expect(r.rows.map((row) => Number(row[0])).sort((a, b) => a - b)).toEqual([0, 1, 2, 100, 200]);
  });
});
