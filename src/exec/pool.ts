// The Piscina pool: one worker thread per core, each running drivers (exec/worker.ts). Requests
// and results carry SharedArrayBuffer-backed pages, so only small descriptors are copied. Every
// worker shares the pool's column arena.

import { Piscina } from 'piscina';
import { createArena } from '../data/arena.js';
import { builtEntry } from '../util/built-entry.js';
import type { WorkerRequest, WorkerResponse } from './worker.js';

function arenaOrNull(): WebAssembly.Memory | null {
  try {
    return createArena();
  } catch {
    return null;
  }
}

export class WorkerPool {
  private readonly piscina: Piscina;
  private closed = false;
  private inFlight = 0;

  /**
   * The column arena the pool's workers allocate cached data in (data/arena.ts); freed with the
   * pool. Null when the system refuses its address space (a ulimit -v): kernels then stay in JS.
   */
  readonly arena: WebAssembly.Memory | null = arenaOrNull();

  constructor(readonly threads: number) {
    this.piscina = new Piscina({
      workerData: { arena: this.arena },
      filename: builtEntry(import.meta.url, 'exec', 'worker.js'),
      minThreads: threads,
      maxThreads: threads,
      // minThreads keeps the pool full; a large idleTimeout would overflow Node timers (and become 1 ms).
      idleTimeout: 60_000,
      concurrentTasksPerWorker: 2,
    });
  }

  run(request: WorkerRequest): Promise<WorkerResponse> {
    if (this.closed) return Promise.reject(new Error('worker pool is closed'));
    this.inFlight++;
    const done = (): void => {
      this.inFlight--;
    };
    const response = this.piscina.run(request) as Promise<WorkerResponse>;
    response.then(done, done);
    return response;
  }

  /** Requests handed to the pool and not answered yet (running on a worker or queued for one). */
  get busyRequests(): number {
    return this.inFlight;
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
