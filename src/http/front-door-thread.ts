// The owner's side of the front door thread (front-door-worker.ts).

import { Worker } from 'node:worker_threads';
import type { Logger } from '../util/logger.js';
import { builtEntry } from '../util/built-entry.js';
import type { FrontDoorCommand, FrontDoorEvent, FrontDoorStart } from './front-door-worker.js';
import type { Upstream } from './front-door.js';

export interface FrontDoorThread {
  readonly port: number;
  stopAccepting(): Promise<void>;
  /** Waits until every proxied connection has closed (at most `timeoutMs`), cuts the rest, ends the thread. */
  drain(timeoutMs: number): Promise<void>;
}

export async function startFrontDoorThread(host: string, port: number, upstream: Upstream, logger: Logger): Promise<FrontDoorThread> {
  const start: FrontDoorStart = { host, port, upstream };
  const worker = new Worker(builtEntry(import.meta.url, 'http', 'front-door-worker.js'), { workerData: start });
  const waiters = new Map<FrontDoorEvent['kind'], (event: FrontDoorEvent) => void>();
  const next = <K extends FrontDoorEvent['kind']>(kind: K): Promise<Extract<FrontDoorEvent, { kind: K }>> =>
    new Promise((resolve) => waiters.set(kind, resolve as (event: FrontDoorEvent) => void));
  worker.on('message', (event: FrontDoorEvent) => {
    if (event.kind === 'log') {
      logger.debug({ err: event.error }, event.message);
      return;
    }
    const waiter = waiters.get(event.kind);
    waiters.delete(event.kind);
    waiter?.(event);
  });
  const started = await Promise.race([
    next('listening'),
    next('failed'),
    new Promise<FrontDoorEvent>((_, reject) => worker.once('error', reject)),
  ]);
  if (started.kind === 'failed') {
    await worker.terminate();
    throw Object.assign(new Error(started.message), { code: started.code });
  }
  const command = (c: FrontDoorCommand): void => worker.postMessage(c);
  return {
    port: (started as { port: number }).port,
    async stopAccepting() {
      const stopped = next('stopped');
      command({ op: 'stop' });
      await stopped;
    },
    async drain(timeoutMs) {
      const drained = next('drained');
      command({ op: 'drain', timeoutMs });
      await drained;
      await worker.terminate();
    },
  };
}
