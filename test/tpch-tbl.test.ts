// The .tbl writer against the official dbgen output: sf0.01 byte for byte (and by SHA-256), and,
// with FULL=1, all eight sf1 files by SHA-256.

import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { SHARED_TPCH } from './support/shared.js';
import { tblChunks, TPCH_TABLE_NAMES, writeTbl, type TpchTableName } from '../src/connectors/tpch/index.js';

const REFERENCE = SHARED_TPCH;

function sums(path: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const m = /^([0-9a-f]{64})\s+\*?(\S+)\.tbl$/.exec(line.trim());
    if (m) out.set(m[2], m[1]);
  }
  return out;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** First differing line, for a readable failure instead of a megabyte diff. */
function firstDifference(got: Buffer, want: Buffer): string {
  const g = got.toString('latin1').split('\n');
  const w = want.toString('latin1').split('\n');
  for (let i = 0; i < Math.max(g.length, w.length); i++) {
    if (g[i] !== w[i]) return `line ${i + 1}:\n  got  ${g[i]}\n  want ${w[i]}`;
  }
  return 'identical';
}

describe('dbgen .tbl text at sf0.01', () => {
  const expected = sums(join(REFERENCE, 'sf0.01/SHA256SUMS'));

  it.each(TPCH_TABLE_NAMES.map((t) => [t]))('%s is byte-identical to dbgen', (table: TpchTableName) => {
    const got = Buffer.concat([...tblChunks(table, 0.01)]);
    const want = gunzipSync(readFileSync(join(REFERENCE, `sf0.01/${table}.tbl.gz`)));
    if (!got.equals(want)) expect.fail(`${table}.tbl differs at ${firstDifference(got, want)}`);
    expect(sha256(got)).toBe(expected.get(table));
  });

  it('writes the same bytes to a file path and to a stream', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tpch-tbl-'));
    try {
      const path = join(dir, 'orders.tbl');
      const toFile = await writeTbl('orders', 0.01, path);
      expect(toFile.rows).toBe(15000);
      const stream = new PassThrough();
      const parts: Buffer[] = [];
      stream.on('data', (b: Buffer) => parts.push(b));
      const toStream = await writeTbl('orders', 0.01, stream);
      stream.end();
      expect(toStream.rows).toBe(15000);
      expect(toStream.bytes).toBe(toFile.bytes);
      const file = readFileSync(path);
      expect(Buffer.concat(parts).equals(file)).toBe(true);
      expect(sha256(file)).toBe(expected.get('orders'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('dbgen .tbl text at sf1', () => {
  it.runIf(process.env.FULL === '1')(
    'all eight tables match the sf1 checksums',
    async () => {
      const expected = sums(join(REFERENCE, 'sf1/SHA256SUMS'));
      const dir = mkdtempSync(join(tmpdir(), 'tpch-sf1-'));
      try {
        for (const table of TPCH_TABLE_NAMES) {
          const path = join(dir, `${table}.tbl`);
          const r = await writeTbl(table, 1, path);
          const hashStarted = performance.now();
          const hash = sha256(readFileSync(path));
          const hashMillis = performance.now() - hashStarted;
          console.log(
            `sf1 ${table}: ${r.rows} rows, ${(r.bytes / 1e6).toFixed(1)} MB, written in ${(r.millis / 1000).toFixed(2)} s ` +
              `(${Math.round(r.rows / (r.millis / 1000))} rows/s), hashed in ${(hashMillis / 1000).toFixed(2)} s`,
          );
          expect(hash, `${table}.tbl`).toBe(expected.get(table));
          rmSync(path);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    600_000,
  );
});
