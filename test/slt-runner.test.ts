// The sqllogictest corpus (test/sql/**/*.slt) against the real server. Formats and directives are
// described in test/sql/README.md.
//
//   npm test                                      every file except test/sql/known-bugs/
//   SLT_FILTER=joins npx vitest run test/slt-runner.test.ts     files whose path contains "joins"
//   SLT_DIFFERENTIAL=0 …                          skip the default re-run of every query on DuckDB
//   SLT_KNOWN_BUGS=1 …                            run test/sql/known-bugs/ too (they fail: engine bugs)
//   npm run slt:complete -- <files or dirs>       refill expectations from DuckDB (no server)

import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { tpchDuckDb } from './support/duckdb.js';
import { runQuery, startServer, type TestServer } from './support/server.js';
import {
  diffFormatted,
  formatRows,
  hasTopLevelOrderBy,
  parseExpected,
  parseSlt,
  rewriteSlt,
  typeLetter,
  type QueryRecord,
  type SltFile,
  type SortMode,
} from './support/slt.js';

const ROOT = resolve(import.meta.dirname, 'sql');
const KNOWN_BUGS = join(ROOT, 'known-bugs');

function sltFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...sltFiles(p));
    else if (e.endsWith('.slt')) out.push(p);
  }
  return out;
}

const completing = process.env.SLT_COMPLETE ? (JSON.parse(process.env.SLT_COMPLETE) as string[]) : undefined;
const differential = process.env.SLT_DIFFERENTIAL !== '0';
const filter = process.env.SLT_FILTER;
const files = (completing ?? sltFiles(ROOT))
  .filter((f) => completing !== undefined || process.env.SLT_KNOWN_BUGS === '1' || !f.startsWith(KNOWN_BUGS + '/'))
  .filter((f) => !filter || f.includes(filter));

// ---- DuckDB: the tpch tables as tpch.tiny, and DuckDB's default database standing in for `memory`.

let duckPromise: Promise<DuckDBConnection> | undefined;
function duckdb(): Promise<DuckDBConnection> {
  duckPromise ??= (async () => {
    const conn = await tpchDuckDb();
    await conn.run("attach ':memory:' as tpch");
    await conn.run('create schema tpch.tiny');
    for (const t of ['nation', 'region', 'part', 'supplier', 'partsupp', 'customer', 'orders', 'lineitem']) {
      await conn.run(`create table tpch.tiny.${t} as from memory.main.${t}`);
      await conn.run(`drop table memory.main.${t}`);
    }
    return conn;
  })();
  return duckPromise;
}

async function duckQuery(conn: DuckDBConnection, sql: string): Promise<{ rows: unknown[][]; types: string[] }> {
  const reader = await conn.runAndReadAll(sql);
  return { rows: reader.getRowsJson() as unknown[][], types: reader.columnTypes().map((t) => t.toString()) };
}

function schemaName(file: string): string {
  return `slt_${relative(ROOT, file).replace(/\.slt$/u, '').replace(/[^a-z0-9]+/giu, '_').toLowerCase()}`;
}

async function useSchema(conn: DuckDBConnection, file: SltFile): Promise<void> {
  if (file.requires.includes('memory')) {
    const schema = schemaName(file.path);
    await conn.run(`drop schema if exists memory.${schema} cascade`);
    await conn.run(`create schema memory.${schema}`);
    await conn.run(`use memory.${schema}`);
  } else {
    await conn.run('use tpch.tiny');
  }
}

function oneLine(sql: string): string {
  return sql.replace(/\s+/gu, ' ').trim().slice(0, 100);
}

// ---- complete mode ---------------------------------------------------------------------------

if (completing) {
  describe('slt:complete (expectations from DuckDB)', () => {
    for (const path of files) {
      it(relative(ROOT, path), async () => {
        const conn = await duckdb();
        const file = parseSlt(path);
        await useSchema(conn, file);
        const updates = new Map<QueryRecord, { types: string; sort: SortMode | undefined; rows: string[][] }>();
        const problems: string[] = [];
        for (const r of file.records) {
          if (r.kind === 'statement') {
            if (r.skipDuckDb) continue;
            try {
              await conn.run(r.sql);
              if (r.error) problems.push(`line ${r.line}: DuckDB ran a statement expected to fail`);
            } catch (e) {
              if (!r.error) problems.push(`line ${r.line}: DuckDB: ${(e as Error).message.split('\n')[0]}`);
            }
            continue;
          }
          if (r.kind !== 'query' || r.skipDuckDb) continue;
          try {
            const res = await duckQuery(conn, r.sql);
            const inferred = res.types.map(typeLetter).join('');
            let types = r.types || inferred;
            if (types.length !== res.types.length) {
              problems.push(`line ${r.line}: ${types.length} type letters for ${res.types.length} columns; inferred ${inferred} again`);
              types = inferred;
            }
            const sort = r.sort ?? (res.rows.length > 1 && !hasTopLevelOrderBy(r.sql) ? 'rowsort' : undefined);
            updates.set(r, { types, sort, rows: formatRows(res.rows, types, sort) });
          } catch (e) {
            problems.push(`line ${r.line}: DuckDB: ${(e as Error).message.split('\n')[0]} — mark Trino-only blocks '# skip duckdb'`);
          }
        }
        writeFileSync(path, rewriteSlt(file, updates));
        console.log(`${relative(ROOT, path)}: ${updates.size} queries completed${problems.length ? `; ${problems.length} problems:\n  ${problems.join('\n  ')}` : ''}`);
      });
    }
  });
} else {
  // ---- run mode -------------------------------------------------------------------------------

  describe('sqllogictest corpus (test/sql)', () => {
    let server: TestServer;
    let hasMemory = false;
    const nowSupported: string[] = [];
    const tally = { unsupported: [] as string[] };

    beforeAll(async () => {
      [server] = await Promise.all([startServer(), differential ? duckdb() : undefined]);
      const cats = await runQuery(server.baseUrl, 'show catalogs');
      hasMemory = cats.rows.some((r) => r[0] === 'memory');
    });
    afterAll(async () => {
      await server?.close();
      if (process.env.SLT_VERBOSE === '1' && tally.unsupported.length) console.log(`# blocks answered with their expected unsupported error:\n  ${tally.unsupported.join('\n  ')}`);
      if (nowSupported.length) console.log(`# unsupported markers whose queries now pass (drop the marker):\n  ${nowSupported.join('\n  ')}`);
    });

    for (const path of files) {
      const file = parseSlt(path);
      const rel = relative(ROOT, path);
      describe(rel, () => {
        let headers: Record<string, string> = {};
        let skip = false;
        beforeAll(async () => {
          if (file.requires.includes('memory')) {
            if (!hasMemory) {
              skip = true;
              return;
            }
            const schema = schemaName(path);
            await runQuery(server.baseUrl, `drop schema if exists memory.${schema} cascade`);
            const created = await runQuery(server.baseUrl, `create schema memory.${schema}`);
            if (created.error) throw new Error(`create schema memory.${schema}: ${created.error.message}`);
            headers = { 'X-Engine-Catalog': 'memory', 'X-Engine-Schema': schema };
          }
          if (differential) await useSchema(await duckdb(), file);
        });
        afterAll(async () => {
          if (headers['X-Engine-Schema']) await runQuery(server.baseUrl, `drop schema if exists memory.${headers['X-Engine-Schema']} cascade`);
        });

        for (const r of file.records) {
          it(`${r.line}: ${oneLine(r.sql)}`, async (ctx) => {
            if (skip) {
              ctx.skip();
              return;
            }
            const ours = await runQuery(server.baseUrl, r.sql, headers);
            const err = ours.error ? `${ours.error.errorName}: ${ours.error.message}` : undefined;
            if (r.kind === 'statement') {
              if (!r.error && err !== undefined) throw new Error(`the statement failed: ${err}`);
              if (r.error) {
                expect(err, 'the statement must fail').toBeDefined();
                expect(err).toMatch(r.error);
              } else {
                expect(err).toBeUndefined();
              }
              if (differential && !r.skipDuckDb && !r.error) await (await duckdb()).run(r.sql);
              return;
            }
            if (r.kind === 'query-error') {
              expect(err, `the query must fail (rows: ${JSON.stringify(ours.rows.slice(0, 3))})`).toBeDefined();
              expect(err).toMatch(r.error);
              return;
            }
            if (err !== undefined && r.unsupported && r.unsupported.test(err)) {
              tally.unsupported.push(`${rel}:${r.line}: ${err}`); // not built yet, and says so
              return;
            }
            if (err !== undefined) throw new Error(`the query failed: ${err}`);
            if (r.expected === undefined || !r.types) throw new Error(`no expected result: run npm run slt:complete -- ${relative(process.cwd(), path)}`);
            const width = ours.columns?.length ?? 0;
            expect(width, 'number of columns vs the type letters').toBe(r.types.length);
            const expected = parseExpected(r.expected, width, r.sort);
            const diff = diffFormatted(formatRows(ours.rows, r.types, r.sort), expected, r.types, r.sort);
            expect(diff, 'ours vs expected').toBeUndefined();
            if (r.unsupported) nowSupported.push(`${rel}:${r.line}`);
            if (differential && !r.skipDuckDb) {
              const theirs = await duckQuery(await duckdb(), r.sql);
              expect(diffFormatted(formatRows(theirs.rows, r.types, r.sort), expected, r.types, r.sort), 'DuckDB vs expected').toBeUndefined();
            }
          });
        }
      });
    }
  });
}
