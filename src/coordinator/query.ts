// One query: its session, state machine (QUEUED → PLANNING → STARTING → RUNNING → FINISHING →
// FINISHED, or FAILED from anywhere), its execution, and the statement protocol's paging: tokens,
// cached answers for retries, long polls bounded by maxWait, batches bounded by targetResultSize.

import type { ClientSignal } from '../util/client-signal.js';
import type { SqlType } from '../data/types.js';
import { typeDisplayName, typeSignature, type TypeSignature } from '../data/types.js';
import { EngineError, toEngineError } from '../util/engine-error.js';
import type { Principal } from './access-control.js';
import { flat } from '../util/flat-string.js';
import { encodeRows, encodeRowsJson, encodeRowsJsonBytes, estimateJsonBytes, JsonBytes, rowsAscii, type JsonValue } from './result-encoding.js';
import type { QueryExecution } from './execution.js';
import type { AdmissionSlot } from './admission.js';

export type QueryState = 'QUEUED' | 'PLANNING' | 'STARTING' | 'RUNNING' | 'FINISHING' | 'FINISHED' | 'FAILED';

/** Each state's place in the order a query moves through them (FAILED can follow any). */
const STATE_RANK: Readonly<Record<QueryState, number>> = { QUEUED: 0, PLANNING: 1, STARTING: 2, RUNNING: 3, FINISHING: 4, FINISHED: 5, FAILED: 6 };

export type HeaderPrefix = 'X-Engine-' | 'X-Trino-' | 'X-Presto-';

export interface Session {
  readonly user: string;
  readonly source: string | undefined;
  readonly catalog: string | undefined;
  readonly schema: string | undefined;
  readonly remoteUserAddress: string;
  readonly userAgent: string | undefined;
  readonly timeZone: string | undefined;
  readonly clientInfo: string | undefined;
  readonly properties: Readonly<Record<string, string>>;
  /** Prepared statements the client sends back (X-…-Prepared-Statement): name → SQL. */
  readonly preparedStatements?: Readonly<Record<string, string>>;
  /** The header spelling the client used; session updates answer in the same spelling. */
  readonly headerPrefix: HeaderPrefix;
  readonly startTime: number;
  /** Who authenticated (absent for in-process statements, which are trusted): access checks go by it. */
  readonly principal?: Principal | undefined;
  /** Why the statement may not run, found before it was queued (an impersonation not allowed). */
  readonly denial?: EngineError | undefined;
}

export interface ColumnDescriptor {
  name: string;
  type: string;
  typeSignature: TypeSignature;
}

export interface QueryErrorBody {
  message: string;
  sqlState: null;
  errorCode: number;
  errorName: string;
  errorType: string;
  errorLocation?: { lineNumber: number; columnNumber: number };
  failureInfo: { type: string; message: string; suppressed: never[]; stack: string[]; errorLocation?: { lineNumber: number; columnNumber: number } };
}

/** A statement's whole outcome, for in-process callers (Query.collect). */
export interface QueryOutcome {
  readonly id: string;
  /** Result columns; empty for a statement without rows (an error, DDL). */
  readonly columns: readonly ColumnDescriptor[];
  /** Every row, as the JSON values the statement protocol sends. */
  readonly rows: JsonValue[][];
  readonly error: EngineError | undefined;
  readonly updateType: string | undefined;
  readonly updateCount: number | undefined;
}

/** How long collect() sleeps between checks when nothing wakes it (states and pages do). */
const COLLECT_POLL_MS = 1000;

/** The ClientSignal of an in-process caller: it never goes away mid-query. */
const STAYS: ClientSignal = { aborted: false, addEventListener() {}, removeEventListener() {} };

export interface StatementAnswer {
  /** The answer as JSON: text, or UTF-8 bytes when it carries a large batch of rows (see takeRows). */
  readonly json: string | Buffer;
  /** The text holds only ASCII characters (its length is its byte count; see HttpReply.ascii). */
  readonly ascii: boolean;
  readonly headers: Record<string, string>;
  readonly final: boolean;
}

export type AnswerResult = { readonly status: 200; readonly answer: StatementAnswer } | { readonly status: 404 | 410 };

/** A cached answer given again (a retry of its token): nothing about the query changes. */
const repeated = (answer: StatementAnswer): AnswerResult => ({ status: 200, answer });

/** Hooks the manager gives a query: how to plan and run it, how to render stats and URIs. */
export interface QueryDriver {
  /** Plans and runs the query: at once, or a promise when it waits for something (planning). */
  process(query: Query): void | Promise<void>;
  /** StatementStats as JSON text (query-info.ts statementStatsJson). */
  statementStatsJson(query: Query): string;
  /** The client has received the query's final answer: it may leave the history from now on. */
  finalAnswerSent?(query: Query): void;
  /** The query has reached FINISHED or FAILED. */
  queryEnded?(query: Query): void;
  /** The query waited for or held a running slot and no longer does: it failed, or its execution is done (FINISHING). */
  admissionReleased?(query: Query): void;
}

export interface SessionUpdates {
  setCatalog?: string;
  setSchema?: string;
  /** SET SESSION: the property the client adds to its session header. */
  setSession?: { readonly name: string; readonly value: string };
  /** RESET SESSION: the property the client drops. */
  resetSession?: string;
  /** PREPARE: the statement the client adds to its prepared statements. */
  addedPrepare?: { readonly name: string; readonly sql: string };
  /** DEALLOCATE PREPARE: the statement the client drops. */
  deallocatedPrepare?: string;
}

/** A batch of rows estimated at this much JSON or more is encoded as bytes (see takeRows). */
const LARGE_BATCH_BYTES = 64 * 1024;

/** How long an answer carrying the last rows waits for the query to finish, to be the final answer. */
const LAST_ROWS_WAIT_MS = 20;
/** Promise reactions waitForFinishing yields to before it arms a timer (a stage a few reactions from ending). */
const FINISHING_HOPS = 16;

/** The columns' JSON text by the types array of the plan that produced them (see columnsJson). */
const columnsTextOf = new WeakMap<readonly SqlType[], { readonly names: readonly string[]; readonly text: string; readonly ascii: boolean }>();

const JSON_SAFE = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A string as JSON: as it is between quotes when nothing in it needs escaping (ids, URIs), else JSON.stringify. */
function jsonString(s: string): string {
  return JSON_SAFE.test(s) ? `"${s}"` : JSON.stringify(s);
}

const quoted = (s: string): string => `"${s}"`;

const NON_ASCII = /[^\x00-\x7f]/;

/** The last base URL found to need no escaping in JSON (a client sends the same Host every time). */
let lastJsonSafeBaseUrl = '';

/**
 * Whether every URI of a query (its base URL, fixed paths, its id and numbers) is JSON-safe as it
 * is: then its answers quote them without escaping each one.
 */
function urisJsonSafe(baseUrl: string, id: string): boolean {
  if (baseUrl !== lastJsonSafeBaseUrl) {
    if (!JSON_SAFE.test(baseUrl)) return false;
    lastJsonSafeBaseUrl = baseUrl;
  }
  return JSON_SAFE.test(id);
}

export class Query {
  state: QueryState = 'QUEUED';
  readonly createTime = Date.now();
  executionStartTime: number | undefined;
  planningStartTime: number | undefined;
  planningEndTime: number | undefined;
  endTime: number | undefined;
  lastHeartbeat = Date.now();
  /** Position in the query manager's set of live queries (util/dense-set.ts). */
  denseSlot = -1;
  /** Whether it waits for a running slot (QUEUED) or holds one (admission.ts). */
  admission: AdmissionSlot = 'none';
  error: EngineError | undefined;
  /** For EXECUTE: the prepared statement with its parameters bound (what is planned). */
  boundSql: string | undefined;
  names: readonly string[] | undefined;
  types: readonly SqlType[] | undefined;
  updateType: string | undefined;
  updateCount: number | undefined;
  readonly sessionUpdates: SessionUpdates = {};
  execution: QueryExecution | undefined;
  /** For EXPLAIN ANALYZE and the like: rows produced on the coordinator instead of by tasks. */
  private lastToken = 0;
  /** The answer to `lastToken` (a promise while it is being computed), for a retry of that token. */
  private lastAnswer: StatementAnswer | Promise<StatementAnswer> | undefined;
  private lastFinal = false;
  private resultToken = 0;
  /** Rows of the page at resultToken already sent (a page larger than a batch is sent in parts). */
  private resultRowOffset = 0;
  private resultDrained = false;
  /** Waiters for the next state change (created on first use). */
  private stateWaiters: (() => void)[] | undefined;
  rowsReturned = 0;
  private columnsText: string | undefined;
  /** columnsText holds only ASCII (column names may not). */
  private columnsAscii = true;
  /** The rows the last takeRows encoded as text are ASCII. */
  private rowsAscii = true;
  /** `{"id":…,"infoUri":…` of every answer, and the nextUri's JSON text without its token and closing quote. */
  private answerHead: string | undefined;
  /** The base URL and id need no escaping in JSON (urisJsonSafe), known once the first answer is built. */
  private urisSafe: boolean | undefined;
  private nextUriPrefix: string | undefined;
  /** The partialCancelUri field and the leaf stage it names (the leaf stage is known once the query runs). */
  private partialCancelText: string | undefined;
  private partialCancelStage = -1;

  constructor(
    readonly id: string,
    readonly slug: string,
    readonly sql: string,
    readonly session: Session,
    private readonly baseUrl: string,
    private readonly driver: QueryDriver,
  ) {}

  get done(): boolean {
    return this.state === 'FINISHED' || this.state === 'FAILED';
  }

  /**
   * Lets go of what only a running query's answers and waits use, once its final answer went out and
   * it joins the history (QueryInfo and a retried final answer need none of it). Under a stream of
   * small statements the history's last 100 queries are what every scavenge copies: their answer
   * texts (ropes) and wait lists were a quarter of what each kept (4.7 → 3.6 KB for SELECT 1).
   */
  retire(): void {
    this.answerHead = undefined;
    this.partialCancelText = undefined;
    this.nextUriPrefix = undefined;
    this.execution?.retire();
  }

  get infoUri(): string {
    return `${this.baseUrl}/v1/query/${this.id}`;
  }

  statementUri(token: number): string {
    return `${this.baseUrl}/v1/statement/${this.id}/${token}`;
  }

  /** Moves forward only (states may be skipped); FAILED from any non-terminal state. */
  transition(to: QueryState): boolean {
    if (this.done) return false;
    if (to !== 'FAILED' && STATE_RANK[to] <= STATE_RANK[this.state]) return false;
    this.state = to;
    const now = Date.now();
    if (to === 'PLANNING') this.planningStartTime = now;
    if (to === 'STARTING' || to === 'RUNNING') {
      this.planningEndTime ??= now;
      this.executionStartTime ??= now;
    }
    // FINISHING: every row has been produced and read (or there were none), so nothing is left to run or hold.
    if (this.admission !== 'none' && STATE_RANK[to] >= STATE_RANK.FINISHING) this.driver.admissionReleased?.(this);
    if (to === 'FINISHED' || to === 'FAILED') {
      this.endTime = now;
      this.driver.queryEnded?.(this);
    }
    const waiters = this.stateWaiters;
    this.stateWaiters = undefined;
    if (waiters !== undefined) for (const w of waiters) w();
    return true;
  }

  /**
   * The execution has produced its whole result: the running slot goes to the next statement while
   * this one's client reads (the buffered rows count against the memory limits until read).
   */
  resultComplete(): void {
    if (this.admission === 'running') this.driver.admissionReleased?.(this);
  }

  fail(e: unknown): void {
    const err = toEngineError(e);
    if (this.done) return;
    this.error = err;
    this.transition('FAILED');
    this.execution?.cancel('ABORTED');
  }

  cancel(): void {
    if (this.done) return;
    this.fail(new EngineError('USER_CANCELED', 'Query was canceled'));
  }

  /**
   * Plans and runs the query: what it can do at once (a cached plan, the dispatch of its splits)
   * happens in this call, the rest as it comes. A POST builds its QUEUED answer before and writes
   * it after, so the workers get their splits before the answer's write (a setImmediate here cost a
   * TPC-H query 0.3–1 ms over HTTP; a microtask after a synchronous reply, 0.1–0.2 ms).
   */
  start(): void {
    try {
      const processing = this.driver.process(this);
      if (processing !== undefined) processing.catch((e: unknown) => this.fail(e));
    } catch (e) {
      this.fail(e);
    }
  }

  /** columns() as JSON text, written once (the names and types do not change once known). */
  private columnsJson(): string | undefined {
    if (this.columnsText === undefined) {
      if (!this.names || !this.types) return undefined;
      // A reused plan hands every query the same names and types arrays: their text is kept with them.
      const known = columnsTextOf.get(this.types);
      if (known?.names === this.names) {
        this.columnsText = known.text;
        this.columnsAscii = known.ascii;
      } else {
        this.columnsText = JSON.stringify(this.columns());
        this.columnsAscii = !NON_ASCII.test(this.columnsText);
        columnsTextOf.set(this.types, { names: this.names, text: this.columnsText, ascii: this.columnsAscii });
      }
    }
    return this.columnsText;
  }

  columns(): ColumnDescriptor[] | undefined {
    if (!this.names || !this.types) return undefined;
    return this.names.map((name, i) => {
      const t = this.types?.[i] as SqlType;
      return { name, type: typeDisplayName(t), typeSignature: typeSignature(t) };
    });
  }

  errorBody(): QueryErrorBody | undefined {
    const e = this.error;
    if (!e) return undefined;
    const location = e.location ? { lineNumber: e.location.lineNumber, columnNumber: e.location.columnNumber } : undefined;
    return {
      message: e.message,
      sqlState: null,
      errorCode: e.errorCode,
      errorName: e.errorName,
      errorType: e.errorType,
      ...(location ? { errorLocation: location } : {}),
      failureInfo: {
        type: failureType(e),
        message: e.message,
        suppressed: [],
        stack: [],
        ...(location ? { errorLocation: location } : {}),
      },
    };
  }

  /** The answer to POST: QUEUED, never rows. */
  initialAnswer(): StatementAnswer {
    const answer = this.buildAnswer(null, true);
    this.lastAnswer = answer;
    this.lastToken = 0;
    return answer;
  }

  /**
   * The answer for GET nextUri with `token`: the cached one when repeated, 410 for an older token,
   * 404 for any other; otherwise waits (≤ maxWaitMs) for rows or a state change. Given at once
   * (no promise) when there is something to answer now: a small statement's GET then writes its
   * answer within the read that brought the request.
   */
  answer(token: number, maxWaitMs: number, targetBytes: number, signal: ClientSignal): AnswerResult | Promise<AnswerResult> {
    this.lastHeartbeat = Date.now();
    const last = this.lastAnswer;
    if (token === this.lastToken && last !== undefined) return last instanceof Promise ? last.then(repeated) : repeated(last);
    if (token < this.lastToken) return { status: 410 };
    if (token !== this.lastToken + 1 || this.lastFinal) return { status: 404 };
    this.lastToken = token;
    // A retry of this token while it is being computed waits for the same answer.
    const pending = this.compute(maxWaitMs, targetBytes, signal);
    if (!(pending instanceof Promise)) return this.answered(pending);
    this.lastAnswer = pending;
    return pending.then((answer) => this.answered(answer));
  }

  private answered(answer: StatementAnswer): AnswerResult {
    this.lastAnswer = answer;
    this.lastFinal = answer.final;
    this.lastHeartbeat = Date.now();
    if (answer.final) this.driver.finalAnswerSent?.(this);
    return { status: 200, answer };
  }

  /**
   * The in-process client: waits for the query to end and returns all its rows as values, read
   * from the root task's buffer without the protocol's JSON text, tokens and long polls. For the
   * engine API (QueryManager.execute); not mixed with answer() on one query.
   */
  async collect(): Promise<QueryOutcome> {
    const rows: JsonValue[][] = [];
    for (;;) {
      this.lastHeartbeat = Date.now();
      this.takeRowValues(rows);
      this.finishIfDrained();
      if (this.done) break;
      await this.waitForProgress(COLLECT_POLL_MS, STAYS);
    }
    this.driver.finalAnswerSent?.(this);
    return { id: this.id, columns: this.columns() ?? [], rows, error: this.error, updateType: this.updateType, updateCount: this.updateCount };
  }

  /** The root task while its result may be read (RUNNING or FINISHING). */
  private resultRoot(): QueryExecution['rootTask'] | undefined {
    return this.state === 'RUNNING' || this.state === 'FINISHING' ? this.execution?.rootTask : undefined;
  }

  /** FINISHED once the client has read the whole result of an execution that is done. */
  private finishIfDrained(): void {
    if (!this.done && this.resultDrainedAndExecutionDone()) this.transition('FINISHED');
  }

  /** collect()'s reader: every page the root task has buffered, as row values. */
  private takeRowValues(out: JsonValue[][]): void {
    const root = this.resultRoot();
    if (!root || !this.types) return;
    const read = root.outputBuffer.read(this.resultToken, Number.MAX_SAFE_INTEGER);
    const before = out.length;
    for (const page of read.pages) encodeRows(page, this.types, out);
    this.resultToken = read.nextToken;
    root.outputBuffer.acknowledge(this.resultToken);
    if (read.complete) this.resultDrained = true;
    this.rowsReturned += out.length - before;
  }

  /** The next answer: at once when there is something to answer now, else after waiting for it (≤ maxWaitMs). */
  private compute(maxWaitMs: number, targetBytes: number, signal: ClientSignal): StatementAnswer | Promise<StatementAnswer> {
    const deadline = Date.now() + maxWaitMs;
    return this.answerNow(targetBytes, deadline, signal) ?? this.computeLater(targetBytes, deadline, signal);
  }

  private async computeLater(targetBytes: number, deadline: number, signal: ClientSignal): Promise<StatementAnswer> {
    for (;;) {
      await this.waitForProgress(Math.max(1, deadline - Date.now()), signal);
      const answer = this.answerNow(targetBytes, deadline, signal);
      if (answer !== undefined) return answer;
    }
  }

  /** The answer if there is one to give now (rows, the end, the deadline, the client gone); undefined to wait. */
  private answerNow(targetBytes: number, deadline: number, signal: ClientSignal): StatementAnswer | Promise<StatementAnswer> | undefined {
    const rows = this.takeRows(targetBytes);
    if (rows === null && !this.done && !this.resultDrainedAndExecutionDone() && Date.now() < deadline && !signal.aborted) return undefined;
    // The last rows may travel on the final answer (as Presto does; clients accept both): a small
    // query then takes POST + one GET instead of POST + two GETs. Reading the last rows usually
    // finishes the execution in the same turn (QueryExecution.onFinished); when a stage is still
    // on its way to that, wait for it briefly.
    if (rows !== null && this.resultDrained && this.state === 'RUNNING') return this.waitForFinishing().then(() => this.finalAnswer(rows));
    return this.finalAnswer(rows);
  }

  private finalAnswer(rows: string | Buffer | null): StatementAnswer {
    this.finishIfDrained();
    return this.buildAnswer(rows, false);
  }

  /**
   * Waits (≤ LAST_ROWS_WAIT_MS) for the execution to finish once its last rows are read, when the
   * read did not finish it at once (a stage whose work ended a few promise reactions ago has not
   * yet begun to wait for its drain): waited out by yielding to those reactions, so that such a
   * statement arms no timer; a timer only when they were not enough.
   */
  private async waitForFinishing(): Promise<void> {
    for (let hop = 0; hop < FINISHING_HOPS && this.state === 'RUNNING'; hop++) await undefined;
    if (this.state === 'RUNNING') await this.waitForStateChange(LAST_ROWS_WAIT_MS);
  }

  private waitForStateChange(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const waiter = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.withdrawStateWaiter(waiter);
        resolve();
      }, timeoutMs);
      (this.stateWaiters ??= []).push(waiter);
    });
  }

  /**
   * Stops calling `waiter` on state changes, for a wait that ended some other way: left in the list,
   * every such waiter (and the request it closes over) stayed reachable until the next state change,
   * one per wait of a long-running query's polls.
   */
  private withdrawStateWaiter(waiter: () => void): void {
    const waiters = this.stateWaiters;
    if (waiters === undefined) return;
    const i = waiters.indexOf(waiter);
    if (i >= 0) waiters.splice(i, 1);
  }

  private resultDrainedAndExecutionDone(): boolean {
    if (this.state === 'FINISHING' && !this.execution) return true;
    return this.state === 'FINISHING' && this.resultDrained;
  }

  /**
   * Waits for a state change, new result pages (while RUNNING), the client leaving, or `timeoutMs`.
   * Whichever comes first withdraws the others: a pending timer or buffer waiter would keep this
   * query and the awaiting request reachable for up to maxWait, long enough to be promoted out of
   * the young generation under a stream of small queries (measured: ~2 MB promoted per scavenge).
   */
  private waitForProgress(timeoutMs: number, signal: ClientSignal): Promise<void> {
    return new Promise((resolve) => {
      let withdrawBufferWait: (() => void) | undefined;
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        withdrawBufferWait?.();
        this.withdrawStateWaiter(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal.addEventListener('abort', done, { once: true });
      (this.stateWaiters ??= []).push(done);
      const root = this.execution?.rootTask;
      if (root && this.state === 'RUNNING') withdrawBufferWait = root.outputBuffer.onNextChange(done);
    });
  }

  /**
   * Reads result pages from the root task's buffer, up to about targetBytes of JSON: the rows as
   * JSON (comma-separated arrays), null when there were none. A batch estimated at
   * LARGE_BATCH_BYTES or more is encoded as UTF-8 bytes, a smaller one as text.
   */
  private takeRows(targetBytes: number): string | Buffer | null {
    const root = this.resultRoot();
    if (!root || !this.types) return null;
    const read = root.outputBuffer.read(this.resultToken, targetBytes);
    const estimates = read.pages.map(estimateJsonBytes);
    const batchBytes = Math.min(estimates.reduce((a, b) => a + b, 0), targetBytes);
    const bytes = batchBytes >= LARGE_BATCH_BYTES ? new JsonBytes(batchBytes + 1024) : null;
    let out = '';
    let rows = 0;
    let taken = 0;
    let ascii = true;
    for (const [p, page] of read.pages.entries()) {
      // Stop after about targetBytes, splitting a page that is larger than what is left of the batch.
      const start = this.resultRowOffset;
      const rowBytes = page.length > 0 ? estimates[p]! / page.length : 0;
      const fits = rowBytes > 0 ? Math.max(1, Math.ceil((targetBytes - taken) / rowBytes)) : page.length;
      const end = Math.min(page.length, start + fits);
      if (end > start) {
        if (bytes !== null) {
          if (rows > 0) bytes.byte(0x2c);
          encodeRowsJsonBytes(page, this.types, bytes, start, end);
        } else {
          out += (rows > 0 ? ',' : '') + encodeRowsJson(page, this.types, start, end);
          ascii &&= rowsAscii(page, start, end);
        }
        rows += end - start;
      }
      taken += rowBytes * (end - start);
      if (end < page.length) {
        this.resultRowOffset = end;
        break;
      }
      this.resultRowOffset = 0;
      this.resultToken++;
      if (taken >= targetBytes) break;
    }
    root.outputBuffer.acknowledge(this.resultToken);
    if (read.complete && this.resultToken >= read.nextToken) this.resultDrained = true;
    this.rowsReturned += rows;
    this.rowsAscii = ascii;
    if (rows === 0) return null;
    return bytes !== null ? bytes.toBuffer() : out;
  }

  /** The answer, fields in Trino's order; `rows` (JSON, see takeRows) go in as they are. */
  private buildAnswer(rows: string | Buffer | null, initial: boolean): StatementAnswer {
    const final = !initial && (this.state === 'FAILED' || this.state === 'FINISHED');
    // The id and URIs are the same in every answer but for the token: escaped once per query.
    const quote = (this.urisSafe ??= urisJsonSafe(this.baseUrl, this.id)) ? quoted : jsonString;
    this.answerHead ??= `{"id":${quote(this.id)},"infoUri":${quote(this.infoUri)}`;
    let head = this.answerHead;
    if (!final) {
      const leafStage = this.execution?.leafStageId() ?? 0;
      if (this.partialCancelStage !== leafStage || this.partialCancelText === undefined) {
        this.partialCancelStage = leafStage;
        this.partialCancelText = `,"partialCancelUri":${quote(`${this.baseUrl}/v1/stage/${this.id}.${leafStage}`)}`;
      }
      head += this.partialCancelText;
      this.nextUriPrefix ??= quote(this.statementUri(0)).slice(0, -2);
      head += `,"nextUri":${this.nextUriPrefix}${this.lastToken + 1}"`;
    }
    const columns = initial ? undefined : this.columnsJson();
    const error = this.errorBody();
    const errorText = error ? JSON.stringify(error) : '';
    let tail = error ? `,"error":${errorText},"warnings":[]` : ',"warnings":[]';
    if (this.updateType) tail += `,"updateType":${jsonString(this.updateType)}`;
    if (this.updateCount !== undefined) tail += `,"updateCount":${JSON.stringify(this.updateCount)}`;
    const before = `${head}${columns === undefined ? '' : `,"columns":${columns}`}`;
    const after = `,"stats":${this.driver.statementStatsJson(this)}${tail}}`;
    const json =
      typeof rows === 'string' || rows === null
        ? `${before}${rows === null ? '' : `,"data":[${rows}]`}${after}`
        : Buffer.concat([Buffer.from(`${before},"data":[`, 'utf8'), rows, Buffer.from(`]${after}`, 'utf8')]);
    // The answer stays cached for a retry (and with the query in the history): as one flat string,
    // not the rope of ~100 pieces it was built as (5.7 against 0.6 KB kept for a SELECT 1 answer;
    // the write would copy it anyway).
    if (typeof json === 'string') flat(json);
    // URIs quoted as they are (urisSafe) and every other part checked or ASCII by construction.
    const ascii =
      typeof json === 'string' &&
      this.urisSafe &&
      (columns === undefined || this.columnsAscii) &&
      (rows === null || this.rowsAscii) &&
      !NON_ASCII.test(errorText) &&
      (this.updateType === undefined || !NON_ASCII.test(this.updateType));
    return { json, ascii, headers: this.done || this.state === 'FINISHING' ? this.sessionHeaders() : {}, final };
  }

  private sessionHeaders(): Record<string, string> {
    const p = this.session.headerPrefix;
    const h: Record<string, string> = {};
    if (this.sessionUpdates.setCatalog !== undefined) h[`${p}Set-Catalog`] = this.sessionUpdates.setCatalog;
    if (this.sessionUpdates.setSchema !== undefined) h[`${p}Set-Schema`] = this.sessionUpdates.setSchema;
    const set = this.sessionUpdates.setSession;
    if (set !== undefined) h[`${p}Set-Session`] = `${set.name}=${encodeURIComponent(set.value)}`;
    if (this.sessionUpdates.resetSession !== undefined) h[`${p}Clear-Session`] = this.sessionUpdates.resetSession;
    const added = this.sessionUpdates.addedPrepare;
    if (added !== undefined) h[`${p}Added-Prepare`] = `${encodeURIComponent(added.name)}=${encodeURIComponent(added.sql)}`;
    if (this.sessionUpdates.deallocatedPrepare !== undefined) h[`${p}Deallocated-Prepare`] = encodeURIComponent(this.sessionUpdates.deallocatedPrepare);
    return h;
  }
}

function failureType(e: EngineError): string {
  switch (e.errorName) {
    case 'SYNTAX_ERROR':
      return 'io.trino.sql.parser.ParsingException';
    case 'USER_CANCELED':
    case 'ABANDONED_QUERY':
      return 'io.trino.spi.TrinoException';
    default:
      return e.errorType === 'USER_ERROR' ? 'io.trino.spi.TrinoException' : 'java.lang.RuntimeException';
  }
}
