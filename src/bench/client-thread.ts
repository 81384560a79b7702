// The bench's statement client on a thread of its own, as a real client is a separate program:
// on the server's main thread the client's HTTP work (requests, responses, JSON) was interleaved
// with the coordinator's and delayed its stages (Q3, Q8, Q16: 10-40 ms a run). Each job is one
// statement; its time is taken inside this thread, from the POST to the last answer.
import { parentPort, Worker } from 'node:worker_threads';
import { runStatement, type Session, type StatementOutcome } from './client.js';

interface Job {
  readonly id: number;
  readonly baseUrl: string;
  readonly sql: string;
  readonly session: Session;
  readonly timeoutMs: number;
}

type Reply = { readonly id: number; readonly ok: true; readonly outcome: StatementOutcome } | { readonly id: number; readonly ok: false; readonly error: string };

/** A client thread: run() sends it a statement and resolves with the outcome it measured. */
export class StatementClientThread {
  private readonly worker = new Worker(new URL(import.meta.url));
  private readonly pending = new Map<number, { resolve(o: StatementOutcome): void; reject(e: Error): void }>();
  private nextId = 0;

  constructor() {
    this.worker.on('message', (reply: Reply) => {
      const p = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (reply.ok) p?.resolve(reply.outcome);
      else p?.reject(new Error(reply.error));
    });
    const failAll = (error: Error): void => {
      for (const p of this.pending.values()) p.reject(error);
      this.pending.clear();
    };
    this.worker.on('error', failAll);
    this.worker.on('exit', (code) => failAll(new Error(`statement client thread exited (code ${code})`)));
  }

  run(baseUrl: string, sql: string, session: Session, timeoutMs: number): Promise<StatementOutcome> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, baseUrl, sql, session, timeoutMs } satisfies Job);
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

if (parentPort !== null) {
  const port = parentPort;
  port.on('message', (job: Job) => {
    runStatement(job.baseUrl, job.sql, job.session, job.timeoutMs).then(
      (outcome) => port.postMessage({ id: job.id, ok: true, outcome } satisfies Reply),
      (error: unknown) => port.postMessage({ id: job.id, ok: false, error: error instanceof Error ? error.message : String(error) } satisfies Reply),
    );
  });
}
