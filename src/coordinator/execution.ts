// Running a planned query: one task per stage, all started at once; a stage that probes hash
// joins first waits for their tables. A scan stage runs one driver per split: a few in-memory
// rows on this thread in one turn; when it ends in a reducing aggregation or reads a small table,
// on every worker, each claiming splits from a shared counter; otherwise one pool request per
// split, two in flight per thread, paused while its output buffer is full. An exchange stage
// reads its child's buffer: streaming operators run inline as pages arrive (joins on the pool, one
// driver per batch), blocking ones (aggregation, sort) as one driver over all input — on the pool
// when the input is large, and one per worker when it starts with a grouped aggregation over many
// rows, each aggregating a hash partition of the groups (partitioned-stage.ts). A build stage's
// output is collected and hashed into a JoinTable in SharedArrayBuffers, shared by every probing
// driver. Tiny drivers run inline.

import type { Split } from '../connectors/catalog.js';
import { needsTextPool, type TpchConnector } from '../connectors/tpch/connector.js';
import { pageBytes, projectPage, rowsViewable, type Page } from '../data/page.js';
import type { SqlType } from '../data/types.js';
import { buildJoinTable, joinTableBytes, type JoinTable } from '../exec/join-table.js';
import { gatherColumn, gatherPage, nullColumn, sliceColumn } from '../exec/gather.js';
import { nowNanos } from '../exec/metrics.js';
import { flat } from '../util/flat-string.js';
import { adaptPartialAggregation, operatorOutputTypes, rowsDivisible, Pipeline, runPipeline, type DriverResult } from '../exec/pipeline.js';
import type { WorkerPool } from '../exec/pool.js';
import { isBlocking, type FragmentSpec } from '../exec/specs.js';
import type { ClaimedOutcome, DriverOutcome, GeneratedColumns, WorkerRequest } from '../exec/worker.js';
import type { BuildInput, QueryPlan, StagePlan } from '../sql/fragment.js';
import { toEngineError, type EngineError } from '../util/engine-error.js';
import { droppedSharedBytes } from '../util/shared-garbage.js';
import { createQueryControl, driverBytes, guarded, memoryLimitError, setCoordinatorBytes, stopQuery, type QueryControl } from '../exec/query-control.js';
import { combinePartitioned, partitionStage, type PartitionedStage } from './partitioned-stage.js';
import { SqlTask } from './task.js';
import type { MemoryPool } from './memory-pool.js';

/** Drivers over at most this many input rows run on the main thread. */
const INLINE_MAX_ROWS = 4096;
/**
 * A scan of in-memory pages of at most this many rows in all runs on the main thread: a pool round
 * trip costs 1–2 ms between stages, the scan (sf1's 10k suppliers, filtered or probing a small
 * build) 0.1 ms.
 */
const INLINE_SCAN_ROWS = 16 * 1024;
/** A task stops scheduling drivers while this much output waits to be read. */
const BUFFER_LIMIT_BYTES = 32 * 1024 * 1024;
/** Bytes read from an upstream buffer per exchange request. */
const EXCHANGE_READ_BYTES = 16 * 1024 * 1024;

export interface ExecutionContext {
  readonly pool: WorkerPool;
  readonly tpch: TpchConnector;
  readonly textPool: () => Promise<Uint8Array>;
  readonly memoryLimitBytes: number;
  /** The server-wide limit every running execution's memory counts against (absent: none). */
  readonly memoryPool?: MemoryPool;
  /** Splits for a source stage (resolved on the coordinator, cache-aware). */
  readonly splitsFor: (stage: StagePlan) => Split[];
}

type Joins = Readonly<Record<number, JoinTable>>;

/** A consumer's view of an upstream task: the task and which reader of its buffer is ours. */
interface Upstream {
  readonly task: SqlTask;
  readonly reader: number;
}

/**
 * The rows whose flag is `want`, in one pass. A plain function rather than loops in the async
 * method: it runs once per query on the main thread, and 42k flags (Q22's customers) took
 * 0.45–4 ms as two loops inside an async function, 0.2–0.3 ms here (once optimized, both).
 */
function rowsFlagged(flags: Uint8Array, rows: number, want: 0 | 1): Int32Array {
  const sel = new Int32Array(rows);
  let k = 0;
  for (let r = 0; r < rows; r++) if (flags[r] === want) sel[k++] = r;
  return sel.subarray(0, k);
}

/** How a plan's stages read each other (see readerLayoutOf). */
interface ReaderLayout {
  /** Readers of each producing stage. */
  readonly readers: ReadonlyMap<number, number>;
  /** Consumer (`stage:childIndex` or `join id`) → its reader of the producer's buffer. */
  readonly readerOf: ReadonlyMap<string, number>;
}

const readerLayouts = new WeakMap<QueryPlan, ReaderLayout>();

/**
 * A stage several consumers read (planned once for each use) gives each its own reader. Worked
 * out once per plan: a cached plan hands every execution the same one.
 */
function readerLayoutOf(plan: QueryPlan): ReaderLayout {
  let layout = readerLayouts.get(plan);
  if (layout === undefined) {
    const readers = new Map<number, number>();
    const readerOf = new Map<string, number>();
    const assign = (producer: number, consumer: string): void => {
      const reader = readers.get(producer) ?? 0;
      readers.set(producer, reader + 1);
      readerOf.set(consumer, reader);
    };
    for (const s of plan.stages) {
      s.children.forEach((c, i) => assign(c, `${s.stageId}:${i}`));
      for (const b of s.builds) assign(b.stageId, `join ${b.joinId}`);
    }
    readerLayouts.set(plan, (layout = { readers, readerOf }));
  }
  return layout;
}

/** Whether a split's rows can be cut into views of its cached columns (pageRowRange); unread columns are undefined (onlyColumns). */
function viewableRows(split: Split): boolean {
  return split.kind === 'pages' && split.pages.every((p) => p.columns.every((c) => c === undefined || rowsViewable(c)));
}

/** A scan over at most this many rows is claimed by the workers whatever its fragment ends in. */
const CLAIM_SMALL_SCAN_ROWS = 1 << 20;

/**
 * Whether a scan stage's workers claim its splits themselves (runClaimedSplits): its output must
 * be small, since each worker holds it until its last split: the fragment ends in an aggregation
 * that reduces (not passed through), or the table is small (at most CLAIM_SMALL_SCAN_ROWS rows:
 * Q2's, Q11's and Q16's part, partsupp and supplier scans, whose drivers take 0.1–0.5 ms and
 * whose answers one by one came back 0.4–0.7 ms late); never with a trailing LIMIT, which
 * drivers one by one stop at. And there must be splits to share.
 */
function claimsSplits(fragment: FragmentSpec, splits: readonly Split[], threads: number): boolean {
  if (splits.length <= threads) return false;
  const last = fragment.operators[fragment.operators.length - 1];
  if (last !== undefined && last.op === 'aggregate' && last.step !== 'passthrough') return true;
  return limitOf(fragment) === Infinity && totalRows(splits) <= CLAIM_SMALL_SCAN_ROWS;
}

function totalRows(splits: readonly Split[]): number {
  let rows = 0;
  for (const split of splits) rows += split.rows;
  return rows;
}

/**
 * The most rows a fragment's operators can make of one input row: a join walks up to its build's
 * longest chain per probe row (the whole build for a cross join), grouping sets repeat each row.
 */
function rowGrowth(fragment: FragmentSpec, joins: Joins): number {
  let growth = 1;
  for (const op of fragment.operators) {
    if (op.op === 'hashJoin') growth *= Math.max(1, joins[op.joinId]?.maxChain ?? Infinity);
    else if (op.op === 'groupId') growth *= op.sets.length;
  }
  return growth;
}

/**
 * Whether a driver over `rows` input rows may run on the coordinator's thread, which also serves
 * HTTP: bounded by the rows its operators can produce, not only by those it reads (a few hundred
 * rows cross-joined with a few thousand would hold every request up).
 */
function smallWork(fragment: FragmentSpec, rows: number, joins: Joins, limit = INLINE_MAX_ROWS): boolean {
  return rows * rowGrowth(fragment, joins) <= limit;
}

/** Whether a split runs on the coordinator's thread: pages already in memory, little work. */
function runsInline(split: Split, fragment: FragmentSpec, joins: Joins): boolean {
  return split.kind === 'pages' && smallWork(fragment, split.rows, joins, INLINE_SCAN_ROWS);
}

/**
 * Whether a stage's splits together are small in-memory pages (VALUES, a small memory table):
 * then they run in one turn, without awaits; more rows go one driver at a time, yielding between
 * drivers and pausing while the output buffer is full.
 */
function fewInlineRows(splits: readonly Split[], fragment: FragmentSpec, joins: Joins): boolean {
  return splits.every((split) => split.kind === 'pages') && smallWork(fragment, totalRows(splits), joins, INLINE_SCAN_ROWS);
}

/** Rows a fragment's trailing LIMIT lets through the whole task (not each driver); Infinity without one. */
function limitOf(fragment: FragmentSpec): number {
  const last = fragment.operators[fragment.operators.length - 1];
  return last?.op === 'limit' && last.count !== null ? last.count + last.offset : Infinity;
}

/** A driver's input pages on this thread: the split's (only the columns the scan reads) or the request's. */
function inlinePages(request: WorkerRequest & { kind: 'driver' }): readonly Page[] {
  const input = request.split ? (request.split.kind === 'pages' ? request.split.pages : []) : (request.pages ?? []);
  const cols = request.fragment.source.kind === 'scan' ? request.fragment.source.columns : null;
  return cols ? input.map((p) => projectPage(p, cols)) : input;
}

export class QueryExecution {
  readonly tasks: SqlTask[];
  private failure: EngineError | undefined;
  private readonly finishedPromise: Promise<void>;
  private resolveFinished!: () => void;
  private isFinished = false;
  /** Called in the turn the last task finishes (see onFinished); created on first use. */
  private finishedCallbacks: (() => void)[] | undefined;
  private stopped = false;
  /** Join id → its hash table (created on first use: most statements have no joins). */
  private joinTables: Map<number, Promise<JoinTable>> | undefined;
  /** Consumer (`stage:childIndex` or `join id`) → its reader of the producer's buffer. */
  private readonly readerOf: ReadonlyMap<string, number>;
  private joinBytes = 0;
  /** Tasks by stage id (created on first use): a plan may have thousands of stages (UNION ALL arms). */
  private taskByStage: Map<number, SqlTask> | undefined;
  /** Position in the memory pool's set of running executions (util/dense-set.ts). */
  denseSlot = -1;
  /** Told once the root task has all its pages: nothing is left to run, only to be read. */
  resultListener: { resultComplete(): void } | undefined;
  /** Bytes of upstream pages read into this thread's hands (a blocking stage's input, a build's rows) and not yet let go. */
  private drainedBytes = 0;
  /** The stop flag and memory budget every driver of the query polls (query-control.ts). */
  readonly control: QueryControl;

  constructor(
    readonly queryId: string,
    readonly plan: QueryPlan,
    private readonly ctx: ExecutionContext,
    private readonly onFailure: (e: EngineError) => void,
  ) {
    const layout = readerLayoutOf(plan);
    this.readerOf = layout.readerOf;
    this.tasks = plan.stages.map((s) => new SqlTask(flat(`${queryId}.${s.stageId}.0`), queryId, s.stageId, s.fragment, layout.readers.get(s.stageId) ?? 1));
    this.finishedPromise = new Promise((resolve) => (this.resolveFinished = resolve));
    this.control = createQueryControl(ctx.memoryLimitBytes);
  }

  get rootTask(): SqlTask {
    return this.task(0);
  }

  task(stageId: number): SqlTask {
    return (this.taskByStage ??= new Map(this.tasks.map((t) => [t.stageId, t]))).get(stageId) as SqlTask;
  }

  /** Resolves once every task has finished: run, and its output read to the end (or dropped). */
  get finished(): Promise<void> {
    return this.finishedPromise;
  }

  /**
   * Calls `callback` in the same turn as the last task finishes (at once when that happened
   * already): a client's read of the last rows then moves its query on before it answers, where
   * awaiting `finished` took it through seven promise reactions a statement.
   */
  onFinished(callback: () => void): void {
    if (this.isFinished) callback();
    else (this.finishedCallbacks ??= []).push(callback);
  }

  start(): void {
    this.ctx.memoryPool?.add(this);
    this.runAll(this.plan.stages);
  }

  /** Runs only source stages (a task posted to /v1/task: its consumer reads the buffer over HTTP). */
  startSources(): void {
    this.ctx.memoryPool?.add(this);
    this.runAll(this.plan.stages);
  }

  /**
   * Runs every stage; the execution finishes when the last task does, that is once each stage has
   * run (runStage never rejects: a failure fails the execution) and its output has been read to
   * the end or dropped (whenDrained), in the turn of that last read.
   */
  private runAll(stages: readonly StagePlan[]): void {
    let open = stages.length;
    const taskFinished = (): void => {
      if (--open === 0) this.finish();
    };
    for (const s of stages) {
      const task = this.task(s.stageId);
      void this.runStage(s).then(() => this.whenDrained(task, taskFinished));
    }
    if (open === 0) this.finish();
  }

  private finish(): void {
    // Every stage is done: no driver probes a hash table any more. A finished query stays in the
    // history (for /v1/query) and must not keep its hash tables alive with it.
    this.joinTables = undefined;
    droppedSharedBytes(this.joinBytes + this.tasks.reduce((sum, t) => sum + t.outputBuffer.bytesAdded, 0));
    this.joinBytes = 0;
    this.ctx.memoryPool?.remove(this);
    this.isFinished = true;
    this.resolveFinished();
    const callbacks = this.finishedCallbacks;
    this.finishedCallbacks = undefined;
    if (callbacks !== undefined) for (const callback of callbacks) callback();
  }

  /** Lets go of the drained buffers' storage (Query.retire; a buffer keeps whatever may still be read). */
  retire(): void {
    for (const t of this.tasks) t.outputBuffer.retire();
  }

  /** The leaf-most scan stage (what a partial cancel stops). */
  leafStageId(): number {
    const scans = this.plan.stages.filter((s) => s.fragment.source.kind === 'scan');
    return scans.length ? Math.max(...scans.map((s) => s.stageId)) : 0;
  }

  /** Stages partially canceled (created on first use). */
  private partiallyCanceled: Set<number> | undefined;
  /** Per stage whose splits the workers claim themselves: [next split, stop flag] (see runClaimedSplits). */
  private splitClaims: Map<number, Int32Array> | undefined;

  /** Partial cancel: the stage schedules no more splits; what it produced still flows on. */
  cancelStage(stageId: number): boolean {
    if (!this.plan.stages.some((s) => s.stageId === stageId)) return false;
    (this.partiallyCanceled ??= new Set()).add(stageId);
    const claim = this.splitClaims?.get(stageId);
    if (claim) Atomics.store(claim, 1, 1);
    return true;
  }

  /** Stops everything: running drivers end at their next checkpoint (query-control.ts), what they made is dropped. */
  cancel(state: 'CANCELED' | 'ABORTED' = 'CANCELED'): void {
    this.stopped = true;
    this.ctx.memoryPool?.remove(this);
    stopQuery(this.control);
    this.stopClaims();
    // Each task's state before its buffer's abort, which finishes the task (whenDrained) at once.
    for (const t of this.tasks) {
      t.setState(state);
      t.outputBuffer.abort();
    }
  }

  /** Cancelled or failed: the execution ends without a complete result. */
  get stoppedEarly(): boolean {
    return this.stopped;
  }

  /** Workers claiming splits claim no more (the stop flag ends the split they are running). */
  private stopClaims(): void {
    if (this.splitClaims !== undefined) for (const claim of this.splitClaims.values()) Atomics.store(claim, 1, 1);
  }

  private fail(e: EngineError): void {
    if (this.failure) return;
    this.failure = e;
    this.stopped = true;
    this.ctx.memoryPool?.remove(this);
    stopQuery(this.control);
    this.stopClaims();
    for (const t of this.tasks) {
      if (!t.done) {
        t.failure = e;
        t.setState('FAILED');
      }
      t.outputBuffer.abort();
    }
    this.onFailure(e);
  }

  /** A plain loop: the memory pool sums this over every running execution after each driver of any of them. */
  memoryReservation(): number {
    let bytes = this.stopped ? 0 : this.joinBytes + this.drainedBytes;
    for (const t of this.tasks) bytes += t.memoryReservation();
    return bytes;
  }

  /** Fails the query past its limit: what this thread holds and what its running drivers hold (published for their checks). */
  private checkMemory(): void {
    const held = this.memoryReservation();
    setCoordinatorBytes(this.control, held);
    const used = held + driverBytes(this.control);
    if (used > this.ctx.memoryLimitBytes) throw memoryLimitError(this.ctx.memoryLimitBytes, used);
    this.ctx.memoryPool?.check(used);
  }

  private async runStage(stage: StagePlan): Promise<void> {
    const task = this.task(stage.stageId);
    try {
      // No await without builds: a trivial statement then runs in the turn that started it.
      const tables = stage.builds.length === 0 ? [] : await Promise.all(stage.builds.map((b) => this.joinTable(b)));
      if (this.stopped) return;
      const joins: Record<number, JoinTable> = {};
      stage.builds.forEach((b, i) => (joins[b.joinId] = tables[i]));
      if (stage.fragment.source.kind === 'scan') await this.runSourceTask(stage, task, joins);
      else await this.runExchangeTask(stage, task, joins);
    } catch (e) {
      // Once stopped, drivers end with "stopped" errors: the query's failure (or cancel) is known.
      if (!this.stopped) this.fail(toEngineError(e));
    }
  }

  /** The hash table of a build stage: its whole output, collected and hashed once. */
  private joinTable(build: BuildInput): Promise<JoinTable> {
    const tables = (this.joinTables ??= new Map());
    let table = tables.get(build.joinId);
    if (!table) {
      table = this.buildTable(build);
      tables.set(build.joinId, table);
    }
    return table;
  }

  private async buildTable(build: BuildInput): Promise<JoinTable> {
    const source = this.task(build.stageId);
    const { pages, rows, bytes } = await this.drain({ task: source, reader: this.readerOf.get(`join ${build.joinId}`) ?? 0 });
    const types = source.fragment.outputTypes;
    let table: JoinTable;
    if (rows <= INLINE_MAX_ROWS) table = buildJoinTable(pages, types, build.keys, build.trackMatches);
    else {
      const response = await this.ctx.pool.run({ kind: 'buildJoin', pages, types, keys: build.keys, trackMatches: build.trackMatches, control: this.control });
      if (!response.ok) throw toEngineError(response.error);
      if (!('joinTable' in response)) throw new Error('unexpected worker response');
      table = response.joinTable;
    }
    this.drainedBytes -= bytes;
    this.joinBytes += joinTableBytes(table);
    this.checkMemory();
    return table;
  }

  /**
   * Reads a task's output buffer to the end. The pages read count as the query's (drainedBytes)
   * until the caller lets go of them (subtracting `bytes`): once read they leave the buffer's
   * accounting, and a sort over a cross join's output held gigabytes no one counted.
   */
  private async drain(source: Upstream): Promise<{ pages: Page[]; rows: number; bytes: number }> {
    const buffer = source.task.outputBuffer;
    const pages: Page[] = [];
    let rows = 0;
    let bytes = 0;
    let token = 0;
    for (;;) {
      if (this.stopped) return { pages, rows, bytes };
      const read = buffer.read(token, EXCHANGE_READ_BYTES, source.reader);
      token = read.nextToken;
      let readBytes = 0;
      for (const p of read.pages) {
        pages.push(p);
        rows += p.length;
        readBytes += pageBytes(p);
      }
      if (readBytes > 0) {
        bytes += readBytes;
        this.drainedBytes += readBytes;
        this.checkMemory();
      }
      if (read.complete) {
        buffer.acknowledge(token, source.reader);
        return { pages, rows, bytes };
      }
      if (read.pages.length === 0) await buffer.waitForChange(100);
    }
  }

  private async runDriver(request: WorkerRequest & { kind: 'driver' }, inline: boolean): Promise<DriverResult> {
    if (inline) return guarded(this.control, () => runPipeline(request.fragment, inlinePages(request), request.joins));
    const source = request.fragment.source;
    const split = request.split && source.kind === 'scan' ? onlyColumns(request.split, source.columns) : request.split;
    const textPool = await this.textPoolFor(split ? [split] : []);
    return this.driverOnPool({ ...request, split, textPool });
  }

  /** A request answered with one driver's result, run on the pool. */
  private async driverOnPool(request: WorkerRequest & { kind: 'driver' | 'gatherRows' }): Promise<DriverResult> {
    const response = await this.ctx.pool.run({ ...request, control: this.control });
    if (!response.ok) throw toEngineError(response.error);
    if (!('result' in response)) throw new Error('unexpected worker response');
    return this.takeOutcome(response);
  }

  /** The TPC-H text pool when a split generates a column that needs it. */
  private async textPoolFor(splits: readonly Split[]): Promise<Uint8Array | undefined> {
    const needed = splits.some((split) => split.kind === 'generated' && needsTextPool(split.descriptor, split.columns));
    return needed ? this.ctx.textPool() : undefined;
  }

  /** A driver's result, after caching the columns it generated. */
  private takeOutcome({ result, generated }: DriverOutcome): DriverResult {
    this.storeGenerated(generated);
    return result;
  }

  private storeGenerated(generated: GeneratedColumns | undefined): void {
    if (generated) this.ctx.tpch.store(generated.cacheKey, generated.length, generated.positions, generated.columns);
  }

  private async runSourceTask(stage: StagePlan, task: SqlTask, joins: Joins): Promise<void> {
    const splits = this.ctx.splitsFor(stage);
    task.totalDrivers = splits.length;
    task.queuedDrivers = splits.length;
    task.noMoreSplits = true;
    task.setState('RUNNING');
    if (fewInlineRows(splits, stage.fragment, joins)) this.runInlineSplits(stage, task, splits, joins);
    else if (claimsSplits(stage.fragment, splits, this.ctx.pool.threads)) await this.runClaimedSplits(stage, task, splits, joins);
    else await this.runSplitsOneByOne(stage, task, splits, joins);
    // Splits skipped because a LIMIT was satisfied count as completed.
    task.completedDrivers += task.queuedDrivers;
    task.queuedDrivers = 0;
    const owed = this.finishOutput(stage, task, joins);
    if (owed !== undefined) await owed;
  }

  /**
   * The stage's splits on every worker thread at once, each worker claiming the next split from
   * a shared counter until none is left: the coordinator's thread is not in the loop between
   * splits. On this 2-core machine it competes with both workers for a core, and its answer to
   * a finished driver came 1-4 ms late (Q6's drivers take 1 ms). Only for stages whose output is
   * small (see claimsSplits): it is held until the worker's last split.
   */
  private async runClaimedSplits(stage: StagePlan, task: SqlTask, splits: readonly Split[], joins: Joins): Promise<void> {
    const { fragment } = stage;
    const columns = fragment.source.kind === 'scan' ? fragment.source.columns : [];
    const prepared = splits.map((split) => onlyColumns(split, columns));
    const textPool = await this.textPoolFor(prepared);
    if (this.stopped) return;
    const claim = new Int32Array(new SharedArrayBuffer(8));
    (this.splitClaims ??= new Map()).set(stage.stageId, claim);
    task.runningDrivers = splits.length;
    task.queuedDrivers = 0;
    try {
      // Cached splits feeding a partial aggregation: the last ones are claimed in slices, so the
      // workers finish together (the aggregation merges whatever rows each worker took). Not with
      // varchar columns: a slice of those is a copy (Q13's o_comment: 90 ms a run).
      const slicedTail = rowsDivisible(fragment) && prepared.every(viewableRows) ? Math.min(prepared.length, this.ctx.pool.threads) : 0;
      const requests = Array.from({ length: this.ctx.pool.threads }, () => this.ctx.pool.run({ kind: 'claimDrivers', fragment, splits: prepared, joins, textPool, claim, slicedTail, control: this.control }));
      const outcomes: ClaimedOutcome[] = [];
      for (const response of await Promise.all(requests)) {
        if (!response.ok) throw toEngineError(response.error);
        if (!('drivers' in response)) throw new Error('unexpected worker response');
        outcomes.push(...response.drivers);
      }
      if (this.stopped) return;
      // In split order, as drivers one by one would have produced them.
      outcomes.sort((a, b) => a.split - b.split);
      for (const outcome of outcomes) {
        // A split fed into another's driver brings only the columns it generated.
        this.storeGenerated(outcome.generated);
        if (outcome.result === undefined) continue;
        task.recordDriver(outcome.result);
        for (const page of outcome.result.pages) task.outputBuffer.enqueue(page);
      }
      this.checkMemory();
    } finally {
      this.splitClaims?.delete(stage.stageId);
      // Every split counts as completed, also those never claimed (stopped), as skipped ones do.
      task.runningDrivers = 0;
      task.completedDrivers += splits.length;
    }
  }

  /** The stage's splits one driver request each, a few in flight per worker thread. */
  private async runSplitsOneByOne(stage: StagePlan, task: SqlTask, splits: readonly Split[], joins: Joins): Promise<void> {
    const parallelism = Math.max(1, this.ctx.pool.threads * 2);
    let next = 0;
    let fragment = stage.fragment;
    let remaining = limitOf(fragment);
    const worker = async (): Promise<void> => {
      while (next < splits.length && !this.stopped) {
        while (task.outputBuffer.isFull(BUFFER_LIMIT_BYTES) && !this.stopped) {
          const before = Date.now();
          await task.outputBuffer.waitForChange(50);
          task.blockedNanos += (Date.now() - before) * 1e6;
        }
        if (this.stopsScheduling(stage, task, remaining)) break;
        const split = splits[next++];
        task.queuedDrivers--;
        task.runningDrivers++;
        try {
          const result = await this.runDriver({ kind: 'driver', fragment, split, joins }, runsInline(split, fragment, joins));
          fragment = adaptPartialAggregation(fragment, result);
          remaining = this.acceptDriver(task, result, remaining);
        } finally {
          task.runningDrivers--;
          task.completedDrivers++;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallelism, Math.max(1, splits.length)) }, worker));
  }

  /**
   * Splits with few rows in all (fewInlineRows), one after the other without an await: a trivial
   * statement (SELECT 1, VALUES) then costs no promise, closure or worker round trip per driver
   * (each a few hundred bytes of garbage, which under a stream of them is GC time).
   */
  private runInlineSplits(stage: StagePlan, task: SqlTask, splits: readonly Split[], joins: Joins): void {
    let fragment = stage.fragment;
    let remaining = limitOf(fragment);
    for (const split of splits) {
      if (this.stopsScheduling(stage, task, remaining)) break;
      task.queuedDrivers--;
      task.runningDrivers++;
      try {
        const result = guarded(this.control, () => runPipeline(fragment, inlinePages({ kind: 'driver', fragment, split, joins }), joins));
        fragment = adaptPartialAggregation(fragment, result);
        // Not summed over every task per driver here (the rows are few and in memory already):
        // thousands of one-row stages made that quadratic.
        remaining = this.acceptDriver(task, result, remaining, false);
      } finally {
        task.runningDrivers--;
        task.completedDrivers++;
      }
    }
  }

  /** Whether a scan stage starts no more drivers: stopped, output no longer read, partially canceled, or its LIMIT reached. */
  private stopsScheduling(stage: StagePlan, task: SqlTask, remaining: number): boolean {
    return this.stopped || task.outputBuffer.isFinished || this.partiallyCanceled?.has(stage.stageId) === true || remaining <= 0;
  }

  /** Records a driver and queues its pages, at most `remaining` rows of them; returns what remains. */
  private acceptDriver(task: SqlTask, result: DriverResult, remaining: number, checkMemory = true): number {
    task.recordDriver(result);
    for (const page of result.pages) {
      if (remaining <= 0) break;
      const kept = page.length <= remaining ? page : { length: remaining, columns: page.columns.map((c) => sliceColumn(c, 0, remaining)) };
      remaining -= kept.length;
      task.outputBuffer.enqueue(kept);
    }
    if (checkMemory) this.checkMemory();
    return remaining;
  }

  /**
   * After the last driver: the rows a join still owes (emitUnmatched, emitMarked), then no more
   * pages. Without such rows this runs to the end synchronously, so a client woken by the last
   * page already finds the buffer complete and gets the last rows on the final answer.
   */
  private finishOutput(stage: StagePlan, task: SqlTask, joins: Joins): void | Promise<void> {
    if (stage.emitUnmatched || stage.emitMarked) return this.emitOwedRows(stage, task, joins).then(() => this.noMorePages(task));
    this.noMorePages(task);
  }

  private async emitOwedRows(stage: StagePlan, task: SqlTask, joins: Joins): Promise<void> {
    if (stage.emitUnmatched) await this.emitUnmatched(stage, task, joins);
    if (stage.emitMarked) await this.emitMarked(stage, task);
  }

  private noMorePages(task: SqlTask): void {
    task.outputBuffer.setNoMorePages();
    if (!task.done) task.setState('FLUSHING');
    if (task.stageId === 0) this.resultListener?.resultComplete();
  }

  /**
   * After the probes of a LEFT JOIN run from its preserved side: the build rows nobody matched,
   * NULL-extended on the right, through the rest of the fragment (one more driver).
   */
  private async emitUnmatched(stage: StagePlan, task: SqlTask, joins: Joins): Promise<void> {
    const u = stage.emitUnmatched;
    if (!u || this.stopped) return;
    const { table, sel } = await this.markedRows(stage, u.joinId, 0);
    const count = sel.length;
    if (count === 0) return;
    const page: Page = {
      length: count,
      columns: u.inputTypes.map((type, c) => (c < u.leftWidth ? gatherColumn(table.page.columns[c], sel, count) : nullColumn(type, count))),
    };
    const tail: FragmentSpec = { ...stage.fragment, source: { kind: 'exchange', stages: [] }, inputTypes: u.inputTypes, operators: stage.fragment.operators.slice(u.fromOperator) };
    const result = await this.runDriver({ kind: 'driver', fragment: tail, pages: [page], joins }, smallWork(tail, count, joins));
    if (this.stopped) return;
    for (const p of result.pages) task.outputBuffer.enqueue(p);
    this.checkMemory();
  }

  /** After a marking join's probes: the build rows that were (semi) or were not (anti) matched. */
  private async emitMarked(stage: StagePlan, task: SqlTask): Promise<void> {
    const mark = stage.emitMarked;
    if (!mark || this.stopped) return;
    const { table, sel } = await this.markedRows(stage, mark.joinId, mark.anti ? 0 : 1);
    if (sel.length === 0) return;
    // Many rows are gathered on a worker, where the gathers are hot code (on the main thread, which
    // runs them once a query, Q22's 14k customers took 1.5–5 ms).
    const pages = sel.length <= INLINE_MAX_ROWS ? [gatherPage(table.page, sel)] : (await this.driverOnPool({ kind: 'gatherRows', page: table.page, rows: sel })).pages;
    if (!this.stopped) for (const page of pages) task.outputBuffer.enqueue(page);
  }

  /** The build rows of a stage's match-tracking join whose flag is `want` (1 matched, 0 not). */
  private async markedRows(stage: StagePlan, joinId: number, want: 0 | 1): Promise<{ table: JoinTable; sel: Int32Array }> {
    const table = await this.joinTable(stage.builds.find((b) => b.joinId === joinId) as BuildInput);
    return { table, sel: rowsFlagged(table.matched as Uint8Array, table.rowCount, want) };
  }

  /**
   * A task is FINISHED once its buffer has been read to the end (or dropped): then `then` runs, in
   * the turn of the read that drained it (reading, acknowledging and aborting all wake the buffer's
   * waiters).
   */
  private whenDrained(task: SqlTask, then: () => void): void {
    const state = task.outputBuffer.state;
    if (!task.done && state !== 'FINISHED' && state !== 'ABORTED') {
      task.outputBuffer.onNextChange(() => this.whenDrained(task, then));
      return;
    }
    if (!task.done) task.setState('FINISHED');
    then();
  }

  private async runExchangeTask(stage: StagePlan, task: SqlTask, joins: Joins): Promise<void> {
    const upstream: Upstream[] = stage.children.map((id, i) => ({ task: this.task(id), reader: this.readerOf.get(`${stage.stageId}:${i}`) ?? 0 }));
    task.totalDrivers = 1;
    task.queuedDrivers = 1;
    task.setState('RUNNING');
    const fragment = stage.fragment;
    const blocking = fragment.operators.some(isBlocking);
    if (blocking) {
      const inputs = await Promise.all(upstream.map((u) => this.drain(u)));
      if (this.stopped) return;
      const pages = inputs.flatMap((i) => i.pages);
      const rows = inputs.reduce((n, i) => n + i.rows, 0);
      const partitioned = partitionStage(fragment, rows, this.ctx.pool.threads);
      const drivers = partitioned ? partitioned.parts.length + (partitioned.tail ? 1 : 0) : 1;
      task.totalDrivers = drivers;
      task.queuedDrivers = 0;
      task.runningDrivers = drivers;
      const result = partitioned ? await this.runPartitioned(partitioned, pages, joins) : await this.runDriver({ kind: 'driver', fragment, pages, joins }, smallWork(fragment, rows, joins));
      // The input is let go of (a sort's output holds rows of its own).
      for (const input of inputs) this.drainedBytes -= input.bytes;
      task.recordDriver(result);
      for (const page of result.pages) task.outputBuffer.enqueue(page);
      this.checkMemory();
    } else {
      await this.stream(fragment, task, upstream, joins);
    }
    if (this.stopped) return;
    task.runningDrivers = 0;
    task.completedDrivers = task.totalDrivers;
    const owed = this.finishOutput(stage, task, joins);
    if (owed !== undefined) await owed;
  }

  /** A partitioned blocking stage (partitioned-stage.ts): one driver per partition on the pool, then the tail. */
  private async runPartitioned(stage: PartitionedStage, pages: readonly Page[], joins: Joins): Promise<DriverResult> {
    const parts = await Promise.all(stage.parts.map((fragment) => this.runDriver({ kind: 'driver', fragment, pages, joins }, false)));
    if (!stage.tail) return combinePartitioned(stage, parts, null);
    const middle = parts.flatMap((p) => p.pages);
    const rows = middle.reduce((n, p) => n + p.length, 0);
    const tail = await this.runDriver({ kind: 'driver', fragment: stage.tail, pages: middle, joins }, smallWork(stage.tail, rows, joins));
    return combinePartitioned(stage, parts, tail);
  }

  /**
   * Streams upstream pages through a non-blocking fragment. Operators up to the last hash join run
   * on the pool one batch at a time; the rest (projections, LIMIT) run inline.
   */
  private async stream(fragment: FragmentSpec, task: SqlTask, upstream: readonly Upstream[], joins: Joins): Promise<void> {
    const lastJoin = fragment.operators.map((o) => o.op).lastIndexOf('hashJoin');
    const prefixOps = fragment.operators.slice(0, lastJoin + 1);
    const prefixTypes = prefixOps.reduce<SqlType[]>((t, op) => operatorOutputTypes(op, t), [...fragment.inputTypes]);
    const prefix: FragmentSpec | undefined = lastJoin >= 0 ? { ...fragment, operators: prefixOps, outputTypes: prefixTypes } : undefined;
    const suffix: FragmentSpec = { ...fragment, inputTypes: prefixTypes, operators: fragment.operators.slice(lastJoin + 1) };
    const pipeline = new Pipeline(suffix, (page) => task.outputBuffer.enqueue(page));
    task.queuedDrivers = 0;
    task.runningDrivers = 1;
    // Time spent in the inline pipeline: the task's CPU (its wall time mostly waits for upstream).
    let inlineNanos = 0;
    const addInline = (p: Page): void => {
      const t0 = nowNanos();
      pipeline.addInput(p);
      inlineNanos += nowNanos() - t0;
    };
    const feed = async (pages: readonly Page[]): Promise<void> => {
      if (!prefix) {
        for (const p of pages) {
          addInline(p);
          if (pipeline.isDone()) return;
        }
        return;
      }
      const rows = pages.reduce((n, p) => n + p.length, 0);
      // A batch of several pages is shared among the pool's threads (Q21's probe of 157k
      // exchanged lineitems into 730k orders ran on one); results are taken in batch order.
      const batches = rows <= INLINE_MAX_ROWS ? [pages] : splitPages(pages, rows, this.ctx.pool.threads);
      const results = await Promise.all(batches.map((batch) => this.runDriver({ kind: 'driver', fragment: prefix, pages: batch, joins }, smallWork(prefix, rows, joins))));
      for (const result of results) {
        task.recordDriver(result);
        for (const p of result.pages) {
          addInline(p);
          if (pipeline.isDone()) return;
        }
      }
    };
    for (const source of upstream) {
      let token = 0;
      for (;;) {
        if (this.stopped) return;
        if (task.outputBuffer.state === 'ABORTED') {
          // Our consumer is gone (a LIMIT above us was satisfied): stop reading too.
          this.stopUpstream(upstream);
          return;
        }
        while (task.outputBuffer.isFull(BUFFER_LIMIT_BYTES) && !this.stopped) await task.outputBuffer.waitForChange(50);
        const read = source.task.outputBuffer.read(token, EXCHANGE_READ_BYTES, source.reader);
        token = read.nextToken;
        if (read.pages.length > 0) {
          await feed(read.pages);
          if (this.stopped) return;
          this.checkMemory();
        }
        if (pipeline.isDone()) {
          // LIMIT satisfied: stop the upstream stage and drop what it buffered.
          this.stopUpstream(upstream);
          break;
        }
        if (read.complete) {
          source.task.outputBuffer.acknowledge(token, source.reader);
          break;
        }
        if (read.pages.length === 0) await source.task.outputBuffer.waitForChange(100);
      }
    }
    if (this.stopped) return;
    const finish0 = nowNanos();
    pipeline.finish();
    inlineNanos += nowNanos() - finish0;
    const stats = pipeline.stats();
    if (prefix) {
      // The pool-side driver statistics were recorded per batch, each driver's ending with its own
      // TaskOutput entry: the inline tail's operators take its place (EXPLAIN ANALYZE and QueryInfo
      // read the list by position: source, the fragment's operators, TaskOutput).
      if (task.operatorStats.length > prefixOps.length + 1) task.operatorStats.length = prefixOps.length + 1;
      task.operatorStats.push(...stats.slice(1).map((s, i) => ({ ...s, operatorId: prefixOps.length + 1 + i })));
      task.scheduledNanos += inlineNanos;
      task.cpuNanos += inlineNanos;
    } else task.recordDriver({ pages: [], stats, wallNanos: inlineNanos, cpuNanos: inlineNanos });
  }

  private stopUpstream(upstream: readonly Upstream[]): void {
    for (const { task, reader } of upstream) {
      task.outputBuffer.abort(reader);
      // A stage other consumers still read runs on for them.
      if (task.outputBuffer.state === 'ABORTED') task.setState('FINISHED');
    }
  }
}

/** Consecutive groups of whole pages, up to `parts` of them, of about equal rows. */
export function splitPages(pages: readonly Page[], rows: number, parts: number): Page[][] {
  if (parts <= 1 || pages.length <= 1) return [[...pages]];
  const target = rows / Math.min(parts, pages.length);
  const groups: Page[][] = [[]];
  let inGroup = 0;
  for (const page of pages) {
    if (inGroup >= target && groups.length < parts) {
      groups.push([]);
      inGroup = 0;
    }
    groups[groups.length - 1].push(page);
    inGroup += page.length;
  }
  return groups;
}

/**
 * A split carrying only the cached columns its scan reads: every column crosses to the worker as
 * SharedArrayBuffer handles, and a table whose other columns earlier queries cached (lineitem's
 * 16) would otherwise send them all with every split.
 */
function onlyColumns(split: Split, columns: readonly number[]): Split {
  const wanted = new Set(columns);
  const keep = <T>(values: readonly T[]): T[] => values.map((v, i) => (wanted.has(i) ? v : (undefined as T)));
  if (split.kind === 'pages') return { ...split, pages: split.pages.map((p) => ({ length: p.length, columns: keep(p.columns) })) };
  if (split.kind === 'generated') return { ...split, cached: keep(split.cached) };
  return split;
}
