// Where the shared reference material (../shared: TPC-H dbgen output, queries, checksums) is.
// CI clones the repository beside shared/; a clone elsewhere (e.g. under mktemp) can point at it
// with SHARED_DIR. Tests fail loudly when it cannot be found rather than skip.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

function findShared(): string {
  const candidates = [process.env.SHARED_DIR, resolve(import.meta.dirname, '../../../shared'), '/work/shared'].filter((c): c is string => Boolean(c));
  for (const c of candidates) if (existsSync(resolve(c, 'tpch/trino_schema.sql'))) return resolve(c);
  throw new Error(`shared reference data not found (looked in ${candidates.join(', ')}); set SHARED_DIR`);
}

export const SHARED_DIR = findShared();
export const SHARED_TPCH = resolve(SHARED_DIR, 'tpch');
