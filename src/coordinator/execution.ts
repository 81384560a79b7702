// Running a planned query: one task per stage. The leaf task sends one driver per split to the
// worker pool (at most one per thread at a time, paused while its output buffer is full); the root
// task reads the leaf's buffer through an exchange and runs its pipeline — on the pool when it
// must see all input (final aggregation, sort) and the input is large, otherwise inline. Tiny
// drivers (VALUES, metadata tables) run inline to spare a thread hop.

import type { Split } from '../connectors/catalog.js';
import type { TpchConnector } from '../connectors/tpch/connector.js';
import type { Page } from '../data/page.js';
import { pageBytes } from '../data/page.js';
import { Pipeline, runPipeline, type DriverResult } from '../exec/pipeline.js';
import type { WorkerPool } from '../exec/pool.js';
import { isBlocking } from '../exec/specs.js';
import type { WorkerRequest } from '../exec/worker.js';
import type { QueryPlan, StagePlan } from '../sql/fragment.js';
import { EngineError, toEngineError } from '../util/engine-error.js';
import { formatDataSize } from '../util/wire-format.js';
import { SqlTask } from './task.js';

/** Drivers over at most this many input rows run on the main thread. */
const INLINE_MAX_ROWS = 4096;
/** A task stops scheduling drivers while this much output waits to be read. */
const BUFFER_LIMIT_BYTES = 32 * 1024 * 1024;
/** Bytes read from an upstream buffer per exchange request. */
const EXCHANGE_READ_BYTES = 16 * 1024 * 1024;

export interface ExecutionContext {
  readonly pool: WorkerPool;
  readonly tpch: TpchConnector;
  readonly textPool: () => Promise<Uint8Array>;
  readonly memoryLimitBytes: number;
  /** Splits for a source stage (resolved on the coordinator, cache-aware). */
  readonly splitsFor: (stage: StagePlan) => Split[];
}

export class QueryExecution {
  readonly tasks: SqlTask[];
  private failure: EngineError | undefined;
  private readonly finishedPromise: Promise<void>;
  private resolveFinished!: () => void;
  private stopped = false;

  constructor(
    readonly queryId: string,
    readonly plan: QueryPlan,
    private readonly ctx: ExecutionContext,
    private readonly onFailure: (e: EngineError) => void,
  ) {
    this.tasks = plan.stages.map((s) => new SqlTask(`${queryId}.${s.stageId}.0`, queryId, s.stageId, s.fragment));
    this.finishedPromise = new Promise((resolve) => (this.resolveFinished = resolve));
  }

  get rootTask(): SqlTask {
    return this.tasks[0];
  }

  task(stageId: number): SqlTask {
    return this.tasks.find((t) => t.stageId === stageId) as SqlTask;
  }

  /** Resolves once every task has finished running (output may still be unread). */
  get finished(): Promise<void> {
    return this.finishedPromise;
  }

  start(): void {
    const [root, ...rest] = this.plan.stages;
    const leafRuns = rest.map((stage) => this.runSourceTask(stage));
    const rootRun = this.runRootTask(root);
    Promise.all([...leafRuns, rootRun])
      .catch((e: unknown) => this.fail(toEngineError(e)))
      .finally(() => this.resolveFinished());
  }

  /** Runs only source stages (a task posted to /v1/task: its consumer reads the buffer over HTTP). */
  startSources(): void {
    Promise.all(this.plan.stages.map((stage) => this.runSourceTask(stage)))
      .catch((e: unknown) => this.fail(toEngineError(e)))
      .finally(() => this.resolveFinished());
  }

  /** Stops everything: running drivers finish but their output is dropped. */
  cancel(state: 'CANCELED' | 'ABORTED' = 'CANCELED'): void {
    this.stopped = true;
    for (const t of this.tasks) {
      t.outputBuffer.abort();
      t.setState(state);
    }
  }

  private fail(e: EngineError): void {
    if (this.failure) return;
    this.failure = e;
    this.stopped = true;
    for (const t of this.tasks) {
      t.outputBuffer.abort();
      if (!t.done) {
        t.failure = e;
        t.setState('FAILED');
      }
    }
    this.onFailure(e);
  }

  memoryReservation(): number {
    return this.tasks.reduce((m, t) => m + t.memoryReservation(), 0);
  }

  private checkMemory(): void {
    const used = this.memoryReservation();
    if (used > this.ctx.memoryLimitBytes) {
      throw new EngineError(
        'EXCEEDED_LOCAL_MEMORY_LIMIT',
        `Query exceeded per-node memory limit of ${formatDataSize(this.ctx.memoryLimitBytes)} [Allocated: ${formatDataSize(used)}]`,
      );
    }
  }

  private async runDriver(task: SqlTask, request: WorkerRequest & { kind: 'driver' }, inline: boolean): Promise<DriverResult> {
    if (inline) {
      const input = request.split ? (request.split.kind === 'pages' ? request.split.pages : []) : (request.pages ?? []);
      const cols = request.fragment.source.kind === 'scan' ? request.fragment.source.columns : null;
      const pages = cols ? input.map((p) => ({ length: p.length, columns: cols.map((c) => p.columns[c]) })) : input;
      return runPipeline(request.fragment, pages);
    }
    const needsPool = request.split?.kind === 'generated';
    const textPool = needsPool ? await this.ctx.textPool() : undefined;
    const response = await this.ctx.pool.run({ ...request, textPool });
    if (!response.ok) throw toEngineError(response.error);
    if (!('result' in response)) throw new Error('unexpected worker response');
    if (response.generated) this.ctx.tpch.store(response.generated.cacheKey, response.generated.page, pageBytes(response.generated.page));
    void task;
    return response.result;
  }

  private async runSourceTask(stage: StagePlan): Promise<void> {
    const task = this.task(stage.stageId);
    const splits = this.ctx.splitsFor(stage);
    task.totalDrivers = splits.length;
    task.queuedDrivers = splits.length;
    task.noMoreSplits = true;
    task.setState('RUNNING');
    const parallelism = Math.max(1, this.ctx.pool.threads);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < splits.length && !this.stopped) {
        while (task.outputBuffer.isFull(BUFFER_LIMIT_BYTES) && !this.stopped) {
          const before = Date.now();
          await task.outputBuffer.waitForChange(50);
          task.blockedNanos += (Date.now() - before) * 1e6;
        }
        if (this.stopped || task.outputBuffer.isFinished) break;
        const split = splits[next++];
        task.queuedDrivers--;
        task.runningDrivers++;
        try {
          const inline = split.kind === 'pages' && split.rows <= INLINE_MAX_ROWS;
          const result = await this.runDriver(task, { kind: 'driver', fragment: stage.fragment, split }, inline);
          task.recordDriver(result);
          for (const page of result.pages) task.outputBuffer.enqueue(page);
          this.checkMemory();
        } finally {
          task.runningDrivers--;
          task.completedDrivers++;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallelism, Math.max(1, splits.length)) }, worker));
    // Splits skipped because a LIMIT was satisfied count as completed.
    task.completedDrivers += task.queuedDrivers;
    task.queuedDrivers = 0;
    task.outputBuffer.setNoMorePages();
    if (!task.done) task.setState(this.stopped ? 'FINISHED' : 'FLUSHING');
    await this.whenDrained(task);
  }

  /** A task is FINISHED once its buffer has been read to the end. */
  private async whenDrained(task: SqlTask): Promise<void> {
    while (!task.done && task.outputBuffer.state !== 'FINISHED' && task.outputBuffer.state !== 'ABORTED') {
      await task.outputBuffer.waitForChange(100);
    }
    if (!task.done) task.setState('FINISHED');
  }

  private async runRootTask(stage: StagePlan): Promise<void> {
    const task = this.task(stage.stageId);
    const upstream = stage.children.map((id) => this.task(id));
    task.totalDrivers = 1;
    task.queuedDrivers = 1;
    task.setState('RUNNING');
    const blocking = stage.fragment.operators.some(isBlocking);
    const collected: Page[] = [];
    let collectedRows = 0;
    let pipeline: Pipeline | undefined;
    const wall0 = process.hrtime.bigint();
    if (!blocking) {
      pipeline = new Pipeline(stage.fragment, (page) => task.outputBuffer.enqueue(page));
      task.queuedDrivers = 0;
      task.runningDrivers = 1;
    }
    for (const source of upstream) {
      let token = 0;
      for (;;) {
        if (this.stopped) return;
        if (pipeline) {
          while (task.outputBuffer.isFull(BUFFER_LIMIT_BYTES) && !this.stopped) await task.outputBuffer.waitForChange(50);
        }
        const read = source.outputBuffer.read(token, EXCHANGE_READ_BYTES);
        token = read.nextToken;
        for (const page of read.pages) {
          if (pipeline) {
            pipeline.addInput(page);
            if (pipeline.isDone()) break;
          } else {
            collected.push(page);
            collectedRows += page.length;
          }
        }
        if (pipeline?.isDone()) {
          // LIMIT satisfied: stop the upstream stage and drop what it buffered.
          this.stopUpstream(upstream);
          break;
        }
        if (read.complete) {
          source.outputBuffer.acknowledge(token);
          break;
        }
        if (read.pages.length === 0) await source.outputBuffer.waitForChange(100);
      }
    }
    if (this.stopped) return;
    if (pipeline) {
      pipeline.finish();
      const wallNanos = Number(process.hrtime.bigint() - wall0);
      task.recordDriver({ pages: [], stats: pipeline.stats(), wallNanos, cpuNanos: wallNanos });
    } else {
      task.queuedDrivers = 0;
      task.runningDrivers = 1;
      const inline = collectedRows <= INLINE_MAX_ROWS;
      const result = await this.runDriver(task, { kind: 'driver', fragment: stage.fragment, pages: collected }, inline);
      task.recordDriver(result);
      for (const page of result.pages) task.outputBuffer.enqueue(page);
      this.checkMemory();
    }
    task.runningDrivers = 0;
    task.completedDrivers = 1;
    task.outputBuffer.setNoMorePages();
    if (!task.done) task.setState('FLUSHING');
    await this.whenDrained(task);
  }

  private stopUpstream(upstream: readonly SqlTask[]): void {
    for (const t of upstream) {
      t.outputBuffer.abort();
      t.setState('FINISHED');
    }
    this.leafStopped = true;
  }

  private leafStopped = false;

  get limitReached(): boolean {
    return this.leafStopped;
  }
}
