// The server's GC settings really reach V8: a process that applied them marks no major GC on
// background threads (V8's own trace says so), one started with an explicit --concurrent-marking
// keeps concurrent marking. (Pretenuring has no trace in release builds: its flag is checked as
// an explicit choice only.)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { CONCURRENT_MARKING_FLAG, flagChosen, PRETENURING_FLAG } from '../src/util/gc-tuning.js';

const dir = mkdtempSync(join(os.tmpdir(), 'gc-tuning-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MARKER = '--- GC flags applied, marking cycles begun before them ended ---';

/** Runs gc-tuning.ts (transpiled; it imports only node:v8) in a child that then makes garbage for major GCs. */
function concurrentMarkingLines(nodeFlags: string[]): number {
  const source = readFileSync(join(import.meta.dirname, '../src/util/gc-tuning.ts'), 'utf8');
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  writeFileSync(join(dir, 'gc-tuning.mjs'), js);
  const script = join(dir, 'child.mjs');
  writeFileSync(
    script,
    `import { tuneGarbageCollector } from './gc-tuning.mjs';
tuneGarbageCollector();
// A full GC now ends any marking cycle V8 began before the flags were set.
gc();
// Only what V8 traces after this line counts (a pipe's writes are synchronous: it lands in order).
process.stdout.write('${MARKER}\\n');
let keep = [];
for (let i = 0; i < 6e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 2e5) keep = []; }`,
  );
  const child = spawnSync(process.execPath, ['--trace-concurrent-marking', '--expose-gc', ...nodeFlags, script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  expect(child.status).toBe(0);
  const after = child.stdout.slice(child.stdout.indexOf(MARKER));
  expect(after.startsWith(MARKER)).toBe(true);
  return after.split('\n').filter((l) => /concurrent marking|concurrently marked/i.test(l)).length;
}

describe('GC tuning', () => {
  // The child's garbage makes dozens of major GCs: marked concurrently, V8 prints 70–115 lines. A cycle
  // V8 began while the process was still loading (seen with the whole suite loading the machine:
  // 2 to 14 lines) runs as it started: the child ends it with a full GC right after applying the
  // flags, and only lines traced after that count. Even then V8 starts a marking task now and then
  // (0–6 lines seen).
  it('turns concurrent marking off in the process that applies it', () => {
    expect(concurrentMarkingLines([])).toBeLessThanOrEqual(16);
  });

  it('keeps an explicit --concurrent-marking from the command line', () => {
    expect(concurrentMarkingLines(['--concurrent-marking'])).toBeGreaterThanOrEqual(40);
  });

  it('recognises an explicit choice in execArgv or NODE_OPTIONS, either spelling', () => {
    const marking = (argv: string[], options: string | undefined): boolean => flagChosen(CONCURRENT_MARKING_FLAG, argv, options);
    expect(marking([], undefined)).toBe(false);
    expect(marking(['--max-old-space-size=100'], '--inspect')).toBe(false);
    expect(marking(['--concurrent-marking'], undefined)).toBe(true);
    expect(marking([], '--no-concurrent_marking')).toBe(true);
    expect(marking([], '--concurrent-marking-max-worker-num=1')).toBe(false);
    expect(flagChosen(PRETENURING_FLAG, ['--allocation-site-pretenuring'], undefined)).toBe(true);
    expect(flagChosen(PRETENURING_FLAG, [], '--max-semi-space-size=64 --no-allocation_site_pretenuring')).toBe(true);
    expect(flagChosen(PRETENURING_FLAG, ['--concurrent-marking'], undefined)).toBe(false);
  });
});
