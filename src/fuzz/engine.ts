// The fuzzer's handle on our engine: a child process (engine-child.ts) it can kill when a query
// runs past its time limit, restarted with the setup statements replayed.

import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineReply } from './engine-child.js';

export type Outcome =
  | { readonly kind: 'rows'; readonly rows: unknown[][] }
  | { readonly kind: 'error'; readonly name: string; readonly message: string }
  | { readonly kind: 'timeout' };

/** The compiled child: next to this file under dist/, or dist/fuzz when this runs from src/ (vitest). */
function childPath(): string {
  const here = fileURLToPath(import.meta.url);
  const path = here.endsWith('.ts') ? resolve(dirname(here), '../../dist/fuzz/engine-child.js') : join(dirname(here), 'engine-child.js');
  if (!existsSync(path)) throw new Error(`${path} not found: run npm run build first`);
  return path;
}

export class EngineProcess {
  private child: ChildProcess | undefined;
  private nextId = 0;
  private pending = new Map<number, (r: EngineReply) => void>();
  restarts = 0;

  constructor(private readonly setup: readonly string[], private readonly workers = 1) {}

  private async start(): Promise<void> {
    const child = fork(childPath(), [], { env: { ...process.env, FUZZ_WORKERS: String(this.workers) }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'advanced' });
    this.child = child;
    await new Promise<void>((ok, fail) => {
      const onMessage = (m: EngineReply): void => {
        if (m.id === -1) {
          child.off('exit', onExit);
          ok();
        } else this.pending.get(m.id)?.(m);
      };
      const onExit = (code: number | null): void => fail(new Error(`engine child exited (${code}) while starting`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
    child.on('exit', () => {
      for (const [id, done] of this.pending) done({ id, error: { name: 'CRASH', message: 'engine process exited' } });
      this.pending.clear();
      if (this.child === child) this.child = undefined;
    });
    for (const sql of this.setup) {
      const r = await this.send(sql, 60_000);
      if (r.kind !== 'rows') throw new Error(`setup failed: ${sql}: ${r.kind === 'error' ? `${r.name}: ${r.message}` : 'timeout'}`);
    }
  }

  private send(sql: string, timeoutMs: number): Promise<Outcome> {
    const child = this.child!;
    const id = this.nextId++;
    return new Promise<Outcome>((ok) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        ok({ kind: 'timeout' });
      }, timeoutMs);
      this.pending.set(id, (r) => {
        clearTimeout(timer);
        this.pending.delete(id);
        ok(r.error ? { kind: 'error', name: r.error.name, message: r.error.message } : { kind: 'rows', rows: r.rows ?? [] });
      });
      child.send({ id, sql });
    });
  }

  /** Runs one statement; on a timeout the process is killed (the next call starts a fresh one). */
  async run(sql: string, timeoutMs: number): Promise<Outcome> {
    if (!this.child) {
      if (this.nextId > 0) this.restarts++;
      await this.start();
    }
    const r = await this.send(sql, timeoutMs);
    if (r.kind === 'timeout' || (r.kind === 'error' && r.name === 'CRASH')) await this.kill();
    return r;
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
    child.kill('SIGKILL');
    await exited;
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
    child.disconnect();
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}
