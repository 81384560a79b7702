// native-bench, the C limit `npm run bench` compares Q1 and Q6 with: it must do the same work as
// the engine (its check values against our answers on the same sf0.01 lineitem.tbl), and its
// `serve` mode, which the bench times between its own runs, must answer each request and refuse a
// bad one without stopping. Skipped where there is no C compiler.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureNativeBuilt, NativeServer } from '../src/bench/native.js';
import { writeTbl } from '../src/connectors/tpch/index.js';
import { localSession } from '../src/coordinator/query-manager.js';
import { startServer, type TestServer } from './support/server.js';
import { SHARED_TPCH } from './support/shared.js';

/** A TPC-H query's text as the shared folder has it (the engine accepts its comments and final ';'). */
function tpchSql(n: number): string {
  return readFileSync(join(SHARED_TPCH, 'queries', `q${String(n).padStart(2, '0')}.sql`), 'utf8');
}

const hasCompiler = spawnSync('sh', ['-c', 'command -v "${CC:-cc}"']).status === 0;

describe.skipIf(!hasCompiler)('native-bench beside the engine (sf0.01)', () => {
  let dir: string;
  let server: TestServer;
  let native: NativeServer;
  const session = localSession({ catalog: 'tpch', schema: 'tiny' });

  beforeAll(async () => {
    expect(ensureNativeBuilt()).toBeUndefined();
    dir = mkdtempSync(join(tmpdir(), 'native-bench-test-'));
    await writeTbl('lineitem', 0.01, join(dir, 'lineitem.tbl'));
    native = await NativeServer.start(join(dir, 'lineitem.tbl'), 2);
    server = await startServer();
  }, 120_000);
  afterAll(async () => {
    await native?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('Q1 aggregates the rows the engine counts', async () => {
    const ours = await server.app.coordinator.manager.execute(tpchSql(1), session);
    expect(ours.error).toBeUndefined();
    const countOrder = ours.columns.findIndex((c) => c.name === 'count_order');
    const counted = ours.rows.reduce((n, row) => n + Number(row[countOrder]), 0);
    const c = await native.run('q1', 3);
    expect(c.runsMs).toHaveLength(3);
    expect(c.rows).toBe(ours.rows.length);
    expect(c.check).toBe(counted);
  });

  it('Q6 sums the revenue the engine answers', async () => {
    const ours = await server.app.coordinator.manager.execute(tpchSql(6), session);
    expect(ours.error).toBeUndefined();
    const c = await native.run('q6', 1);
    expect(c.rows).toBe(1);
    expect(c.check).toBeCloseTo(Number(ours.rows[0]![0]), 2);
  });

  it('refuses a bad request and goes on serving', async () => {
    await expect((native as unknown as { run(name: string, runs: number): Promise<unknown> }).run('q99', 1)).rejects.toThrow(/expected <q1\|q6\|bandwidth>/);
    expect((await native.run('q6', 2)).runsMs).toHaveLength(2);
  });
});
