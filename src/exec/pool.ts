// The Piscina pool: one worker thread per core, each running drivers (exec/worker.ts). Requests
// and results carry SharedArrayBuffer-backed pages, so only small descriptors are copied.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { Piscina } from 'piscina';
import type { WorkerRequest, WorkerResponse } from './worker.js';

/** The compiled worker entry; tests running from src/ use the built one in dist/. */
function workerFile(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const sibling = resolve(here, 'worker.js');
  if (existsSync(sibling) && !here.includes(`${'/'}src${'/'}`)) return sibling;
  const built = resolve(here, '../../dist/exec/worker.js');
  if (!existsSync(built)) throw new Error(`worker entry not found at ${built}: run \`npm run build\` first`);
  return built;
}

export class WorkerPool {
  private readonly piscina: Piscina;
  private closed = false;

  constructor(readonly threads: number) {
    this.piscina = new Piscina({
      filename: workerFile(),
      minThreads: threads,
      maxThreads: threads,
      // minThreads keeps the pool full; a large idleTimeout would overflow Node timers (and become 1 ms).
      idleTimeout: 60_000,
      concurrentTasksPerWorker: 1,
    });
  }

  run(request: WorkerRequest): Promise<WorkerResponse> {
    if (this.closed) return Promise.reject(new Error('worker pool is closed'));
    return this.piscina.run(request) as Promise<WorkerResponse>;
  }

  get queued(): number {
    return this.piscina.queueSize;
  }

  get utilization(): number {
    return this.piscina.utilization;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.piscina.destroy();
  }
}
