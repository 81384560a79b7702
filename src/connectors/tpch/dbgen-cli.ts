// npm run dbgen -- --sf <n> --out <dir> [--table <t>[,<t>...]]
// Writes dbgen-identical <table>.tbl files and reports rows/s per table.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { TPCH_TABLE_NAMES, type TpchTableName } from './schema.js';
import { textPool } from './text-pool.js';
import { writeTbl } from './tbl-writer.js';

const USAGE = `usage: npm run dbgen -- --sf <scale factor> --out <directory> [--table <name>[,<name>...]]
  --sf      positive scale factor (0.01 = Trino's tiny, 1, 10, ...)
  --out     directory for the <table>.tbl files (created if missing)
  --table   only these tables (${TPCH_TABLE_NAMES.join(', ')}); default all`;

class UsageError extends Error {}

interface Options {
  scaleFactor: number;
  out: string;
  tables: TpchTableName[];
}

function parseArgs(args: readonly string[]): Options {
  let scaleFactor: number | undefined;
  let out: string | undefined;
  let tables: TpchTableName[] | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const eq = arg.indexOf('=');
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    const value = (): string => {
      if (eq >= 0) return arg.slice(eq + 1);
      const v = args[++i];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--sf':
      case '--scale':
      case '-s': {
        const text = value();
        const sf = Number(text);
        if (text.trim() === '' || !Number.isFinite(sf) || sf <= 0) throw new UsageError(`bad scale factor '${text}'`);
        scaleFactor = sf;
        break;
      }
      case '--out':
      case '-o':
        out = value();
        break;
      case '--table':
      case '-T':
        tables ??= [];
        for (const name of value().split(',')) {
          if (!(TPCH_TABLE_NAMES as readonly string[]).includes(name)) throw new UsageError(`unknown table '${name}'`);
          tables.push(name as TpchTableName);
        }
        break;
      case '--help':
      case '-h':
        process.stdout.write(USAGE + '\n');
        process.exit(0);
        break;
      default:
        throw new UsageError(`unknown argument '${arg}'`);
    }
  }
  if (scaleFactor === undefined) throw new UsageError('--sf is required');
  if (out === undefined) throw new UsageError('--out is required');
  return { scaleFactor, out, tables: tables ?? [...TPCH_TABLE_NAMES] };
}

async function main(): Promise<void> {
  let options: Options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`dbgen: ${e.message}\n${USAGE}\n`);
    process.exit(2);
  }
  mkdirSync(options.out, { recursive: true });
  const t0 = performance.now();
  textPool();
  process.stdout.write(`text pool built in ${((performance.now() - t0) / 1000).toFixed(2)}s\n`);
  for (const table of options.tables) {
    const path = join(options.out, `${table}.tbl`);
    const r = await writeTbl(table, options.scaleFactor, path);
    const seconds = r.millis / 1000;
    const rate = seconds > 0 ? Math.round(r.rows / seconds) : r.rows;
    process.stdout.write(
      `${table.padEnd(9)} ${String(r.rows).padStart(11)} rows ${(r.bytes / 1e6).toFixed(1).padStart(9)} MB ` +
        `${seconds.toFixed(2).padStart(7)} s ${String(rate).padStart(10)} rows/s  ${path}\n`,
    );
  }
  process.stdout.write(`total ${((performance.now() - t0) / 1000).toFixed(2)}s\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`dbgen: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
  process.exit(1);
});
