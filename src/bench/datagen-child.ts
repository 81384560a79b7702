// Data-generation speed, in a child process of its own (the 300 MiB text pool and the generated
// pages must not count towards the server's RSS): the text pool build, every table as dbgen .tbl
// text through writeTbl (these files are what DuckDB and native-bench then load), and lineitem and
// orders as columnar pages through generateTpchSplit, all on one thread.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { TPCH_MAX_SPLIT_ROWS } from '../connectors/tpch/connector.js';
import { generateTpchSplit, textPool, tpchSplits, TPCH_TABLE_NAMES, writeTbl, type TpchTableName } from '../connectors/tpch/index.js';

export interface DatagenJob {
  readonly sf: number;
  readonly out: string;
}

export interface DatagenRate {
  readonly table: TpchTableName;
  readonly rows: number;
  readonly ms: number;
  readonly rowsPerSecond: number;
  readonly bytes?: number;
}

export type DatagenMessage =
  | { readonly type: 'step'; readonly label: string }
  | {
      readonly type: 'done';
      readonly textPoolMs: number;
      readonly tbl: readonly DatagenRate[];
      readonly columnar: readonly DatagenRate[];
    };


function send(message: DatagenMessage): void {
  process.send?.(message);
}

async function main(job: DatagenJob): Promise<void> {
  mkdirSync(job.out, { recursive: true });
  send({ type: 'step', label: 'text pool' });
  const t0 = performance.now();
  textPool();
  const textPoolMs = performance.now() - t0;

  const columnar: DatagenRate[] = [];
  for (const table of ['lineitem', 'orders'] as const) {
    send({ type: 'step', label: `${table} columnar` });
    const s = performance.now();
    let rows = 0;
    for (const split of tpchSplits(table, job.sf, TPCH_MAX_SPLIT_ROWS)) rows += generateTpchSplit(split).length;
    const ms = performance.now() - s;
    columnar.push({ table, rows, ms, rowsPerSecond: rows / (ms / 1000) });
  }

  const tbl: DatagenRate[] = [];
  for (const table of TPCH_TABLE_NAMES) {
    send({ type: 'step', label: `${table}.tbl` });
    const r = await writeTbl(table, job.sf, join(job.out, `${table}.tbl`));
    tbl.push({ table, rows: r.rows, ms: r.millis, rowsPerSecond: r.rows / (r.millis / 1000), bytes: r.bytes });
  }
  send({ type: 'done', textPoolMs, tbl, columnar });
}

if (process.send !== undefined && process.argv[2] === '--child') {
  process.once('message', (job: DatagenJob) => {
    main(job).then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`datagen child: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
        process.exit(1);
      },
    );
  });
}
