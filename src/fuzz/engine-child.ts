// Our engine in a child process for the fuzzer (so a query that blocks the main thread can be
// killed): runs each SQL text it is sent through the in-process API and sends back the outcome.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../app.js';
import { defaultConfig } from '../config.js';
import { localSession } from '../coordinator/query-manager.js';

export interface EngineRequest {
  readonly id: number;
  readonly sql: string;
}

export interface EngineReply {
  readonly id: number;
  readonly rows?: unknown[][];
  readonly error?: { readonly name: string; readonly message: string };
}

/** Results this large are not sent back (nor compared). */
const MAX_ROWS = 200_000;
export const TOO_MANY_ROWS = 'FUZZ_TOO_MANY_ROWS';

const dataDir = mkdtempSync(join(tmpdir(), 'fuzz-engine-'));
const app = await createApp(defaultConfig({ port: 0, dataDir, workers: Number(process.env.FUZZ_WORKERS ?? 1) }));
const session = localSession({ user: 'fuzz', catalog: 'tpch', schema: 'tiny' });

process.on('message', (m: EngineRequest) => {
  void app.coordinator.manager.execute(m.sql, session).then(
    (r) => {
      const reply: EngineReply = r.error
        ? { id: m.id, error: { name: r.error.errorName ?? 'UNKNOWN', message: r.error.message ?? '' } }
        : r.rows.length > MAX_ROWS
          ? { id: m.id, error: { name: TOO_MANY_ROWS, message: `${r.rows.length} rows` } }
          : { id: m.id, rows: r.rows as unknown[][] };
      process.send?.(reply);
    },
    (e: unknown) => process.send?.({ id: m.id, error: { name: 'CRASH', message: String((e as Error)?.stack ?? e) } } satisfies EngineReply),
  );
});
process.on('disconnect', () => {
  void app.close().finally(() => {
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
});
process.send?.({ id: -1 } satisfies EngineReply);
