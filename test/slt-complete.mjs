// npm run slt:complete -- <.slt files or directories>: refills the expected results of the `query`
// blocks from DuckDB on the same data (test/slt-runner.test.ts in complete mode; no server needed).
// With no arguments, every file under test/sql except test/sql/known-bugs.

import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, 'sql');
function expand(p) {
  if (statSync(p).isDirectory()) return readdirSync(p).sort().flatMap((e) => expand(join(p, e)));
  return p.endsWith('.slt') ? [p] : [];
}
const args = process.argv.slice(2);
const files = (args.length ? args : [root]).flatMap((a) => expand(resolve(a)))
  .filter((f) => args.length || !f.startsWith(join(root, 'known-bugs') + '/'));
if (files.length === 0) {
  console.error('slt:complete: no .slt files');
  process.exit(1);
}
const r = spawnSync('npx', ['vitest', 'run', 'test/slt-runner.test.ts'], {
  stdio: 'inherit',
  cwd: resolve(import.meta.dirname, '..'),
  env: { ...process.env, SLT_COMPLETE: JSON.stringify(files) },
});
process.exit(r.status ?? 1);
