// Where the benchmark finds its inputs and puts its outputs, relative to the repository.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: dist/bench/*.js sits two levels below it. */
export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** The shared TPC-H folder (queries, schema), beside the repository as the tests find it. */
export const SHARED_TPCH = resolve(REPO_ROOT, '../shared/tpch');

export const DEFAULT_RESULTS_DIR = join(REPO_ROOT, 'bench', 'results');
export const NATIVE_DIR = join(REPO_ROOT, 'native-bench');
export const NATIVE_BINARY = join(NATIVE_DIR, 'build', 'tpch-native');

export interface TpchQuery {
  readonly number: number;
  /** 'q01'. */
  readonly name: string;
  readonly sql: string;
}

/**
 * The query text as sent to both engines. Comment lines are dropped (today's parser rejects a
 * statement that starts with a `--` comment; Trino accepts it) and the trailing ';' too.
 */
export function tpchQuery(n: number): TpchQuery {
  const name = `q${String(n).padStart(2, '0')}`;
  const path = join(SHARED_TPCH, 'queries', `${name}.sql`);
  if (!existsSync(path)) throw new Error(`missing ${path}`);
  const sql = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => !/^\s*--/u.test(line))
    .join('\n')
    .trim()
    .replace(/;\s*$/u, '');
  return { number: n, name, sql };
}

/** Column lists per table, parsed from trino_schema.sql (the DDL both engines' tables follow). */
export function trinoSchema(tpchDir = SHARED_TPCH): { ddl: string; tables: { name: string; columns: { name: string; type: string }[] }[] } {
  const ddl = readFileSync(join(tpchDir, 'trino_schema.sql'), 'utf8');
  const tables: { name: string; columns: { name: string; type: string }[] }[] = [];
  for (const m of ddl.matchAll(/create table (\w+) \(([^;]*)\);/giu)) {
    const columns = m[2].split(',').map((c) => {
      const [name, ...type] = c.trim().split(/\s+/u);
      return { name, type: type.join(' ') };
    });
    tables.push({ name: m[1], columns });
  }
  return { ddl, tables };
}
