// The server's GC setting really reaches V8: a process that applied it marks no major GC on
// background threads (V8's own trace says so), one started with an explicit --concurrent-marking
// keeps concurrent marking.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { concurrentMarkingChosen } from '../src/util/gc-tuning.js';

const dir = mkdtempSync(join(os.tmpdir(), 'gc-tuning-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
let keep = [];
for (let i = 0; i < 3e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 2e5) keep = []; }`,
  );
  const child = spawnSync(process.execPath, ['--trace-concurrent-marking', ...nodeFlags, script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  expect(child.status).toBe(0);
  return child.stdout.split('\n').filter((l) => /concurrent marking|concurrently marked/i.test(l)).length;
}

describe('GC tuning', () => {
  it('turns concurrent marking off in the process that applies it', () => {
    expect(concurrentMarkingLines([])).toBe(0);
  });

  it('keeps an explicit --concurrent-marking from the command line', () => {
    expect(concurrentMarkingLines(['--concurrent-marking'])).toBeGreaterThan(0);
  });

  it('recognises an explicit choice in execArgv or NODE_OPTIONS, either spelling', () => {
    expect(concurrentMarkingChosen([], undefined)).toBe(false);
    expect(concurrentMarkingChosen(['--max-old-space-size=100'], '--inspect')).toBe(false);
    expect(concurrentMarkingChosen(['--concurrent-marking'], undefined)).toBe(true);
    expect(concurrentMarkingChosen([], '--no-concurrent_marking')).toBe(true);
    expect(concurrentMarkingChosen([], '--concurrent-marking-max-worker-num=1')).toBe(false);
  });
});
