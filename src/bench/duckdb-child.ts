// DuckDB, the reference engine, in a child process of its own (so the server's RSS is measured
// without it, and the two never compete for the cores): loads the same dbgen .tbl files into tables
// with the same column types (trino_schema.sql), then times each query. Talks over fork() IPC.
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { trinoSchema } from './paths.js';
import { peakRss } from './rss.js';

export interface DuckJob {
  readonly dataDir: string;
  readonly threads: number;
  readonly runs: number;
  readonly queries: readonly { readonly name: string; readonly sql: string }[];
}

export interface DuckQueryResult {
  readonly name: string;
  readonly error?: string;
  readonly firstMs?: number;
  readonly runsMs?: number[];
  readonly rowCount?: number;
  /** The rows as JSON values, when there are at most MAX_KEPT_ROWS of them. */
  readonly rows?: unknown[][];
}

export type DuckMessage =
  | { readonly type: 'loaded'; readonly ms: number; readonly rows: number }
  | { readonly type: 'run'; readonly name: string; readonly run: number }
  | { readonly type: 'query'; readonly result: DuckQueryResult }
  | { readonly type: 'done'; readonly peakRssBytes: number };

export const MAX_KEPT_ROWS = 1000;

function send(message: DuckMessage): void {
  process.send?.(message);
}

async function main(job: DuckJob): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:', { threads: String(job.threads) });
  const conn = await instance.connect();
  const t0 = performance.now();
  const { ddl, tables } = trinoSchema();
  await conn.run(ddl);
  let rows = 0;
  for (const t of tables) {
    // dbgen lines end with '|', read as one extra empty column.
    const cols = [...t.columns.map((c) => `'${c.name}': '${c.type.toUpperCase()}'`), `'_trailing': 'VARCHAR'`].join(', ');
    const names = t.columns.map((c) => c.name).join(', ');
    const path = join(job.dataDir, `${t.name}.tbl`);
    await conn.run(`insert into ${t.name} select ${names} from read_csv('${path}', delim='|', header=false, quote='', escape='', columns={${cols}})`);
    const count = await conn.runAndReadAll(`select count(*) from ${t.name}`);
    rows += Number(count.getRows()[0][0]);
  }
  send({ type: 'loaded', ms: performance.now() - t0, rows });
  for (const q of job.queries) {
    try {
      const times: number[] = [];
      let rowCount = 0;
      let kept: unknown[][] | undefined;
      for (let r = 0; r <= job.runs; r++) {
        send({ type: 'run', name: q.name, run: r });
        const s = performance.now();
        const reader = await conn.runAndReadAll(q.sql);
        times.push(performance.now() - s);
        rowCount = reader.currentRowCount;
        if (r === 0 && rowCount <= MAX_KEPT_ROWS) kept = reader.getRowsJson() as unknown[][];
      }
      send({ type: 'query', result: { name: q.name, firstMs: times[0], runsMs: times.slice(1), rowCount, rows: kept } });
    } catch (error) {
      send({ type: 'query', result: { name: q.name, error: error instanceof Error ? error.message : String(error) } });
    }
  }
  send({ type: 'done', peakRssBytes: peakRss() });
  conn.closeSync();
  instance.closeSync();
}

if (process.send !== undefined && process.argv[2] === '--child') {
  process.once('message', (job: DuckJob) => {
    main(job).then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`duckdb child: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
        process.exit(1);
      },
    );
  });
}
