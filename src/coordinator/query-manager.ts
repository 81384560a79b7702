// The query manager: assigns ids, plans each query right after its POST answer is built, starts its execution,
// fails queries nobody polls (ABANDONED_QUERY), and keeps a bounded history of finished ones.

import { randomBytes } from 'node:crypto';
import type { CatalogRegistry, MetadataViewer, Split } from '../connectors/catalog.js';
import { pageFromRows } from '../connectors/rows.js';
import type { TpchConnector } from '../connectors/tpch/connector.js';
import type { Page } from '../data/page.js';
import { BOOLEAN, VARCHAR, typeDisplayName, type SqlType } from '../data/types.js';
import { likeMatcher } from '../exec/compile/runtime.js';
import type { WorkerPool } from '../exec/pool.js';
import { analyzeQuery, qualifiedName, resolveTableName, viewNamed, type AnalysisContext, type PlanDependencies } from '../sql/analyze.js';
import { isWriteStatement } from '../sql/ddl.js';
import { explainAnalyze, explainDistributed, explainLogical } from '../sql/explain.js';
import { functionList } from '../sql/function-list.js';
import { fragmentPlan, rowsPlan, type QueryPlan, type StagePlan } from '../sql/fragment.js';
import { RULE_NAMES } from '../sql/optimize/index.js';
import { bindParameters, parseStatement, withNullParameters, type Statement } from '../sql/parse.js';
import { EngineError } from '../util/engine-error.js';
import { accessDenied } from './access-control.js';
import type { Logger } from '../util/logger.js';
import { QueryExecution, type ExecutionContext } from './execution.js';
import { QueryTable } from './query-table.js';
import { Query, type QueryDriver, type QueryOutcome, type Session, type StatementAnswer } from './query.js';
import { statementStatsJson } from './query-info.js';
import { WriteExecutor } from './writes.js';
import { PlanCache, type PlanKey } from './plan-cache.js';
import { DenseSet } from '../util/dense-set.js';
import type { Principal } from './access-control.js';
import type { SqlSecurity } from './sql-security.js';
import { RingQueue } from '../util/ring-queue.js';
import { Admission } from './admission.js';
import { MemoryPool } from './memory-pool.js';

export interface QueryManagerOptions {
  readonly catalogs: CatalogRegistry;
  readonly pool: WorkerPool;
  readonly tpch: TpchConnector;
  readonly logger: Logger;
  readonly memoryLimitBytes: number;
  /** Bytes all running queries may hold together (absent: no limit beyond each query's). */
  readonly totalMemoryLimitBytes?: number;
  /** Statements planned or executed at once (absent: no limit); more wait QUEUED. */
  readonly maxRunningQueries?: number;
  /** Statements waiting for a slot (absent: no limit); more fail with QUERY_QUEUE_FULL. */
  readonly maxQueuedQueries?: number;
  /** Unpolled queries fail after this long. */
  readonly clientTimeoutMs: number;
  /** Finished queries kept for /v1/query. */
  readonly maxHistory?: number;
  readonly historyTtlMs?: number;
  /** Access control for statements with a principal (absent: every statement may do everything). */
  readonly security?: SqlSecurity;
}

/** The base URL of queries run through execute() when the caller names none. */
const IN_PROCESS_BASE_URL = 'http://in-process';

/** What an in-process caller says about itself (execute); the rest of the session takes defaults. */
export interface LocalSessionOptions {
  readonly user?: string;
  readonly source?: string;
  readonly catalog?: string;
  readonly schema?: string;
  readonly timeZone?: string;
  readonly properties?: Readonly<Record<string, string>>;
}

/** A session for execute(), as a statement client with these settings would have. */
export function localSession(o: LocalSessionOptions = {}): Session {
  return {
    user: o.user ?? 'local',
    source: o.source,
    catalog: o.catalog,
    schema: o.schema,
    remoteUserAddress: '127.0.0.1',
    userAgent: undefined,
    timeZone: o.timeZone,
    clientInfo: undefined,
    properties: o.properties ?? {},
    headerPrefix: 'X-Trino-',
    startTime: Date.now(),
    principal: undefined,
    denial: undefined,
  };
}

/** Finished queries kept for /v1/query unless configured otherwise. */
const DEFAULT_MAX_HISTORY = 100;

const COORDINATOR_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Ids carry a 5-digit counter: `YYYYMMDD_HHMMSS_NNNNN_xxxxx`. */
const ID_COUNTER_LIMIT = 100_000;
const ID_LENGTH = 27;
const ID_COUNTER_START = 16;

/** The counter inside one of our query ids (its slot in the query table); -1 for any other text. */
export function counterOfId(id: string): number {
  if (id.length !== ID_LENGTH || id.charCodeAt(ID_COUNTER_START - 1) !== 0x5f || id.charCodeAt(ID_COUNTER_START + 5) !== 0x5f) return -1;
  let n = 0;
  for (let i = ID_COUNTER_START; i < ID_COUNTER_START + 5; i++) {
    const d = id.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

export class QueryManager implements QueryDriver {
  private readonly queries = new QueryTable<Query>(ID_COUNTER_LIMIT, counterOfId);
  private readonly coordinatorId: string;
  private counter = 0;
  private lastSecond = -1;
  private secondText = '';
  private readonly sweeper: NodeJS.Timeout;
  private textPoolPromise: Promise<Uint8Array> | undefined;
  private readonly writes: WriteExecutor;
  private readonly plans: PlanCache;
  private readonly executionContext: ExecutionContext;
  /** Finished queries whose final answer went out, oldest first. */
  private readonly answered = new RingQueue<Query>(256);
  /** Queries not yet FINISHED or FAILED: what the sweep checks for abandonment. */
  private readonly live = new DenseSet<Query>();
  /**
   * Ended queries in the order they ended, for the sweep's history bound
   * and TTL. The sweep walks these instead of the whole query table (100,000 slots: under a
   * stream of small statements that walk took 2–10 ms of the main thread every second).
   */
  private readonly ended = new RingQueue<Query>(256);
  private readonly admission: Admission<Query>;
  /** What every running execution holds, against the server-wide limit. */
  readonly memoryPool: MemoryPool;

  constructor(private readonly options: QueryManagerOptions) {
    const bytes = randomBytes(5);
    this.coordinatorId = [...bytes].map((b) => COORDINATOR_ID_ALPHABET[b % COORDINATOR_ID_ALPHABET.length]).join('');
    this.plans = new PlanCache(options.catalogs);
    this.admission = new Admission<Query>(options.maxRunningQueries ?? Infinity, options.maxQueuedQueries ?? Infinity, (query) => query.start());
    this.memoryPool = new MemoryPool(options.totalMemoryLimitBytes ?? Infinity);
    this.sweeper = setInterval(() => this.sweep(), 1000);
    this.sweeper.unref();
    // One context for every execution (not one per query: a finished query stays in the history).
    this.executionContext = {
      pool: options.pool,
      tpch: options.tpch,
      textPool: () => this.sharedTextPool(),
      memoryLimitBytes: options.memoryLimitBytes,
      memoryPool: this.memoryPool,
      splitsFor: (stage) => this.splitsFor(stage),
    };
    this.writes = new WriteExecutor(options.catalogs, this.executionContext);
  }

  /** `YYYYMMDD_HHMMSS_NNNNN_xxxxx`: UTC time, a 5-digit counter, this coordinator's id. */
  private nextId(): string {
    const now = Date.now();
    const second = Math.floor(now / 1000);
    if (second !== this.lastSecond) {
      const d = new Date(now);
      this.lastSecond = second;
      this.secondText = `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1, 2)}${pad(d.getUTCDate(), 2)}_${pad(d.getUTCHours(), 2)}${pad(d.getUTCMinutes(), 2)}${pad(d.getUTCSeconds(), 2)}`;
    }
    const id = `${this.secondText}_${pad(this.counter, 5)}_${this.coordinatorId}`;
    this.counter = (this.counter + 1) % ID_COUNTER_LIMIT;
    return id;
  }

  /** Creates a query and starts it (or queues it: see dispatch). */
  create(sql: string, session: Session, baseUrl: string): Query {
    const query = this.register(sql, session, baseUrl);
    this.dispatch(query);
    return query;
  }

  /** The statement protocol's POST: a new query, its first (QUEUED) answer built before it starts. */
  submit(sql: string, session: Session, baseUrl: string): { readonly query: Query; readonly answer: StatementAnswer } {
    const query = this.register(sql, session, baseUrl);
    const answer = query.initialAnswer();
    this.dispatch(query);
    return { query, answer };
  }

  /** Starts the query when a running slot is free, else it stays QUEUED until one is; fails it when the queue is full. */
  private dispatch(query: Query): void {
    if (!this.admission.submit(query)) query.fail(new EngineError('QUERY_QUEUE_FULL', 'Too many queued queries for "global"'));
  }

  admissionReleased(query: Query): void {
    this.admission.release(query);
  }

  /** Statements holding a running slot and waiting for one. */
  admissionCounts(): { readonly running: number; readonly queued: number } {
    return { running: this.admission.runningCount, queued: this.admission.queuedCount };
  }

  private register(sql: string, session: Session, baseUrl: string): Query {
    const id = this.nextId();
    const query = new Query(id, `${this.coordinatorId}${this.counter.toString(36)}`, sql, session, baseUrl, this);
    this.queries.set(query);
    this.live.add(query);
    return query;
  }

  /**
   * The in-process engine API: runs a statement and resolves with all its rows once it has ended
   * (a failed statement resolves too, with `error`). No HTTP, no JSON text. `baseUrl` is what the
   * query's infoUri in /v1/query shows.
   */
  execute(sql: string, session: Session, baseUrl = IN_PROCESS_BASE_URL): Promise<QueryOutcome> {
    return this.create(sql, session, baseUrl).collect();
  }

  get(id: string): Query | undefined {
    return this.queries.get(id);
  }

  list(): Query[] {
    return this.queries.values();
  }

  /** Cancels a query (USER_CANCELED); false when unknown. */
  cancel(id: string): boolean {
    const q = this.queries.get(id);
    if (!q) return false;
    q.cancel();
    return true;
  }

  /**
   * Bounds the history as queries are answered, not only on the next sweep: under a stream of
   * small queries a second's worth of finished queries (10k+) would otherwise stay reachable, be
   * promoted by every scavenge and cost the main thread its GC time and tail latency.
   */
  finalAnswerSent(query: Query): void {
    query.retire();
    this.answered.push(query);
    const maxHistory = this.options.maxHistory ?? DEFAULT_MAX_HISTORY;
    while (this.answered.length > maxHistory) this.queries.delete(this.answered.shift()!);
  }

  queryEnded(query: Query): void {
    this.audit(query);
    this.live.delete(query);
    this.ended.push(query);
    this.dropForgottenEnded();
  }

  /** One structured line per finished statement (Trino's query-completed event): never the SQL's literals' secrets, only ids and figures. */
  private audit(query: Query): void {
    const logger = this.options.logger;
    if (!logger.isLevelEnabled('info')) return;
    let rows = 0;
    for (const t of query.execution?.tasks ?? []) rows += t.rawInputRows;
    const s = query.session;
    logger.info(
      {
        event: 'query_completed',
        queryId: query.id,
        user: s.user,
        ...(s.principal && s.principal.user !== s.user ? { principal: s.principal.user } : {}),
        source: s.source,
        remote: s.remoteUserAddress,
        state: query.state,
        ...(query.error ? { errorName: query.error.errorName } : {}),
        processedRows: rows,
        elapsedMs: (query.endTime ?? Date.now()) - query.createTime,
      },
      'query completed',
    );
  }

  /** Drops ended queries at the head of `ended` that have left the table (answered and evicted). */
  private dropForgottenEnded(): void {
    const ended = this.ended;
    for (let q = ended.peek(); q !== undefined && this.queries.get(q.id) !== q; q = ended.peek()) ended.shift();
  }

  statementStatsJson(query: Query): string {
    return statementStatsJson(query);
  }

  /** The TPC-H text pool (300 MiB, shared with every worker), built once on a worker thread. */
  sharedTextPool(): Promise<Uint8Array> {
    this.textPoolPromise ??= this.options.pool.run({ kind: 'buildTextPool' }).then((r) => {
      if (r.ok && 'textPool' in r) return r.textPool;
      this.textPoolPromise = undefined;
      throw new Error('could not build the TPC-H text pool');
    });
    return this.textPoolPromise;
  }

  /**
   * Plans and runs a query (see Query.start). With a cached plan all of it happens in this call;
   * otherwise it goes on once the statement is planned (a promise then).
   */
  process(query: Query): void | Promise<void> {
    if (!query.transition('PLANNING')) return;
    // Access control comes first: a statement that may not run does no work.
    if (query.session.denial) throw query.session.denial;
    const rights = this.rightsOf(query);
    if (rights && !this.options.security!.access.canExecute(rights)) throw accessDenied(`User ${rights.user} cannot execute queries`);
    query.boundSql ??= boundStatement(query);
    // A cached plan skips analysis, where table access is checked: reuse one only when every user may read everything.
    const cached = rights && !this.options.security!.access.readsUnrestricted ? undefined : this.plans.get(planKey(query));
    if (cached !== undefined) return this.run(query, cached);
    return this.planStatement(query).then((plan) => this.run(query, plan));
  }

  /** Runs a planned query (nothing to run: a statement answered at planning). */
  private run(query: Query, plan: QueryPlan | undefined): void {
    if (query.done) return;
    if (!plan) {
      query.transition('FINISHING');
      return;
    }
    query.names = plan.names;
    query.types = plan.types;
    query.transition('STARTING');
    const viewer = readsMetadata(plan) ? this.viewerOf(query) : undefined;
    const context = viewer ? { ...this.executionContext, splitsFor: (stage: StagePlan) => this.splitsFor(stage, viewer) } : this.executionContext;
    const execution = new QueryExecution(query.id, plan, context, (e) => query.fail(e));
    query.execution = execution;
    execution.resultListener = query;
    if (query.done) return;
    query.transition('RUNNING');
    // In the turn the client reads the last rows, so that its answer can already be the final one.
    execution.onFinished(() => {
      if (!query.done && !execution.stoppedEarly) query.transition('FINISHING');
    });
    execution.start();
  }

  /** Whose rights the query runs with (absent: a trusted in-process statement, or no access control). */
  private rightsOf(query: Query): Principal | undefined {
    const principal = query.session.principal;
    const security = this.options.security;
    return principal && security ? security.effectivePrincipal(principal, query.session.user) : undefined;
  }

  private async planStatement(query: Query): Promise<QueryPlan | undefined> {
    const statement = parseStatement(plannedSql(query));
    if (isWriteStatement(statement)) {
      const ctx = this.analysisContext(query);
      const rights = this.rightsOf(query);
      if (rights) this.options.security!.checkWrite(rights, statement, (name) => {
        const q = qualifiedName([...name].map((p) => p.toLowerCase()), ctx);
        return q.catalog !== undefined && q.schema !== undefined ? { catalog: q.catalog, schema: q.schema, name: q.name } : undefined;
      });
      return this.writes.execute(query, statement, ctx);
    }
    if (statement.kind === 'explain' && statement.analyze) return this.explainAnalyze(query, statement);
    return this.plan(query, statement);
  }

  /** `observed` collects what a plan depends on, for the plan cache. */
  private analysisContext(query: Query, observed?: PlanDependencies): AnalysisContext {
    const rights = this.rightsOf(query);
    const security = this.options.security;
    return {
      ...(rights && security ? { checkTableAccess: (t: { catalog: string; schema: string; name: string }) => security.checkTable(rights, t.catalog, t.schema, t.name, 'SELECT') } : {}),
      catalogs: this.options.catalogs,
      catalog: query.session.catalog,
      schema: query.session.schema,
      sql: plannedSql(query),
      now: query.createTime,
      user: query.session.user,
      timeZone: query.session.timeZone,
      disabledRules: disabledRules(query.session.properties),
      observed,
    };
  }

  private plan(query: Query, statement: Statement): QueryPlan | undefined {
    const observed: PlanDependencies = { timeDependent: false, tables: [] };
    const ctx = this.analysisContext(query, observed);
    switch (statement.kind) {
      case 'query': {
        const plan = fragmentPlan(analyzeQuery(statement.ast, ctx));
        this.plans.offer(planKey(query), plan, observed);
        return plan;
      }
      case 'explain': {
        if (statement.statement.kind !== 'query') throw new EngineError('NOT_SUPPORTED', 'EXPLAIN is supported for queries only');
        const logical = analyzeQuery(statement.statement.ast, ctx);
        const text = statement.type === 'DISTRIBUTED' ? explainDistributed(fragmentPlan(logical)) : explainLogical(logical);
        return this.rows(['Query Plan'], [VARCHAR], [[text]]);
      }
      case 'use': {
        const catalog = statement.catalog ?? query.session.catalog;
        if (!catalog) throw new EngineError('MISSING_CATALOG_NAME', 'Catalog must be specified when session catalog is not set', { lineNumber: 1, columnNumber: 5 });
        const connector = this.options.catalogs.get(catalog);
        if (!connector) throw new EngineError('CATALOG_NOT_FOUND', `Catalog '${catalog}' not found`, { lineNumber: 1, columnNumber: 5 });
        if (!connector.listSchemas().includes(statement.schema)) throw new EngineError('SCHEMA_NOT_FOUND', `Schema '${catalog}.${statement.schema}' does not exist`, { lineNumber: 1, columnNumber: 5 });
        query.sessionUpdates.setCatalog = catalog;
        query.sessionUpdates.setSchema = statement.schema;
        return finishedUpdate(query, 'USE');
      }
      case 'showCatalogs': {
        const rights = this.rightsOf(query);
        const names = this.options.catalogs.names().filter((c) => !rights || this.options.security!.access.canAccessCatalog(rights, c));
        return this.rows(['Catalog'], [VARCHAR], filterLike(names, statement.like).map((c) => [c]));
      }
      case 'showSchemas': {
        const catalog = statement.catalog ?? query.session.catalog;
        if (!catalog) throw new EngineError('MISSING_CATALOG_NAME', 'Catalog must be specified when session catalog is not set', { lineNumber: 1, columnNumber: 1 });
        const connector = this.options.catalogs.get(catalog);
        if (!connector) throw new EngineError('CATALOG_NOT_FOUND', `Catalog '${catalog}' not found`, { lineNumber: 1, columnNumber: 1 });
        const rights = this.rightsOf(query);
        const access = this.options.security?.access;
        const schemas = connector.listSchemas().filter((s) => !rights || access!.canSeeSchema(rights, catalog, s, [...connector.listTables(s), ...(connector.listViews?.(s) ?? [])]));
        return this.rows(['Schema'], [VARCHAR], filterLike(schemas, statement.like).map((s) => [s]));
      }
      case 'showTables': {
        const q = statement.qualifier ?? [];
        const catalog = q.length === 2 ? q[0] : query.session.catalog;
        const schema = q.length >= 1 ? q[q.length - 1] : query.session.schema;
        if (!catalog || !schema) throw new EngineError('MISSING_SCHEMA_NAME', 'Schema must be specified when session schema is not set', { lineNumber: 1, columnNumber: 1 });
        const connector = this.options.catalogs.get(catalog);
        if (!connector) throw new EngineError('CATALOG_NOT_FOUND', `Catalog '${catalog}' not found`, { lineNumber: 1, columnNumber: 1 });
        if (!connector.listSchemas().includes(schema)) throw new EngineError('SCHEMA_NOT_FOUND', `Schema '${schema}' does not exist`, { lineNumber: 1, columnNumber: 1 });
        const rights = this.rightsOf(query);
        const names = [...connector.listTables(schema), ...(connector.listViews?.(schema) ?? [])].filter((t) => !rights || this.options.security!.access.canSeeTable(rights, catalog, schema, t)).sort();
        return this.rows(['Table'], [VARCHAR], filterLike(names, statement.like).map((t) => [t]));
      }
      case 'showCreateTable': {
        const table = resolveTableName(statement.table, ctx);
        const columns = table.columns.map((c) => `   ${quoteIdentifier(c.name)} ${typeDisplayName(c.type)}`).join(',\n');
        return this.rows(['Create Table'], [VARCHAR], [[`CREATE TABLE ${[table.catalog, table.schema, table.name].map(quoteIdentifier).join('.')} (\n${columns}\n)`]]);
      }
      case 'showCreateView': {
        const view = viewNamed(statement.view, ctx);
        if (!view) throw new EngineError('TABLE_NOT_FOUND', `View '${statement.view.join('.')}' does not exist`, { lineNumber: 1, columnNumber: 1 });
        return this.rows(['Create View'], [VARCHAR], [[`CREATE VIEW ${[view.catalog, view.schema, view.name].map(quoteIdentifier).join('.')} AS\n${view.sql}`]]);
      }
      case 'showColumns': {
        const columns = viewNamed(statement.table, ctx)?.columns ?? resolveTableName(statement.table, ctx).columns;
        return this.rows(['Column', 'Type', 'Extra', 'Comment'], [VARCHAR, VARCHAR, VARCHAR, VARCHAR], columns.map((c) => [c.name, typeDisplayName(c.type), '', '']));
      }
      case 'setSession': {
        requireSessionProperty(statement.name);
        // Checked now, as a header-borne value is: a bad value fails here, not in later queries.
        disabledRules({ [DISABLED_RULES]: statement.value });
        query.sessionUpdates.setSession = { name: statement.name, value: statement.value };
        return finishedUpdate(query, 'SET SESSION');
      }
      case 'resetSession': {
        requireSessionProperty(statement.name);
        query.sessionUpdates.resetSession = statement.name;
        return finishedUpdate(query, 'RESET SESSION');
      }
      case 'prepare': {
        // Checked now, as Trino does: a statement that does not parse is not prepared.
        const inner = parseStatement(withNullParameters(statement.statement));
        if (inner.kind === 'prepare' || inner.kind === 'execute' || inner.kind === 'deallocate') throw new EngineError('NOT_SUPPORTED', `Invalid statement type for prepared statement: ${inner.kind.toUpperCase()}`, { lineNumber: 1, columnNumber: 1 });
        query.sessionUpdates.addedPrepare = { name: statement.name, sql: statement.statement };
        return finishedUpdate(query, 'PREPARE');
      }
      case 'deallocate': {
        preparedStatement(query, statement.name);
        query.sessionUpdates.deallocatedPrepare = statement.name;
        return finishedUpdate(query, 'DEALLOCATE');
      }
      case 'execute':
        throw new EngineError('NOT_SUPPORTED', 'A prepared statement cannot be an EXECUTE', { lineNumber: 1, columnNumber: 1 });
      case 'showFunctions':
        return this.rows(
          ['Function', 'Return Type', 'Argument Types', 'Function Type', 'Deterministic', 'Description'],
          [VARCHAR, VARCHAR, VARCHAR, VARCHAR, BOOLEAN, VARCHAR],
          functionList()
            .filter((f) => statement.like === undefined || filterLike([f.name], statement.like).length > 0)
            .map((f) => [f.name, f.returnType, f.argumentTypes, f.kind, f.deterministic, '']),
        );
      case 'showSession':
        return this.rows(
          ['Name', 'Value', 'Default', 'Type', 'Description'],
          [VARCHAR, VARCHAR, VARCHAR, VARCHAR, VARCHAR],
          [[DISABLED_RULES, query.session.properties[DISABLED_RULES] ?? '', '', 'varchar', `Planning rules to skip, comma separated (${RULE_NAMES.join(', ')})`]],
        );
    }
  }

  /** Runs the query, then answers its distributed plan annotated with what every operator did. */
  private async explainAnalyze(query: Query, statement: Extract<Statement, { kind: 'explain' }>): Promise<QueryPlan> {
    if (statement.statement.kind !== 'query') throw new EngineError('NOT_SUPPORTED', 'EXPLAIN ANALYZE is supported for queries only');
    const plan = fragmentPlan(analyzeQuery(statement.statement.ast, this.analysisContext(query)));
    await this.writes.collect(query, plan);
    const tasks = query.execution?.tasks ?? [];
    const runs = tasks.map((t) => ({ stageId: t.stageId, operators: t.operatorStats, cpuNanos: t.cpuNanos, wallNanos: t.scheduledNanos, drivers: t.completedDrivers }));
    return this.rows(['Query Plan'], [VARCHAR], [[explainAnalyze(plan, runs)]]);
  }

  private rows(names: string[], types: SqlType[], rows: unknown[][]): QueryPlan {
    return rowsPlan(names, types, pageFromRows(types, rows));
  }

  /** What the query's metadata scans may show (absent: everything). */
  private viewerOf(query: Query): MetadataViewer | undefined {
    const rights = this.rightsOf(query);
    const access = this.options.security?.access;
    if (!rights || !access) return undefined;
    return {
      user: rights.user,
      canSeeTable: (catalog, schema, table) => access.canSeeTable(rights, catalog, schema, table),
      canSeeQuery: (id) => {
        const q = this.queries.get(id);
        return q !== undefined && access.canAccessQuery(rights, 'view', q.session.user);
      },
    };
  }

  private splitsFor(stage: StagePlan, viewer?: MetadataViewer): Split[] {
    const scan = stage.scan;
    if (!scan) return [];
    if ('page' in scan) return [{ kind: 'pages', pages: [scan.page], rows: scan.page.length }];
    if ('values' in scan) {
      // Pages are never written after they are built: a cached plan's VALUES page serves every run.
      let page = valuesPages.get(scan);
      if (!page) {
        const built = pageFromRows(
          scan.fields.map((f) => f.type),
          scan.values.map((row) => row.map((e) => (e.kind === 'literal' ? e.value : null))),
        );
        page = { ...built, length: scan.values.length };
        valuesPages.set(scan, page);
      }
      return [{ kind: 'pages', pages: [page], rows: page.length }];
    }
    const connector = this.options.catalogs.get(scan.table.catalog);
    if (!connector) throw new EngineError('CATALOG_NOT_FOUND', `Catalog '${scan.table.catalog}' not found`);
    const source = stage.fragment.source;
    return connector.splits(scan.table, 1 << 16, source.kind === 'scan' ? source.columns : undefined, viewer);
  }

  /** Abandons unpolled queries and forgets the oldest finished ones (beyond the history bound or TTL). */
  sweep(now = Date.now()): void {
    const timeout = this.options.clientTimeoutMs;
    // fail() ends the query, which takes it out of `live`: iterate a copy.
    for (const q of this.live.snapshot()) {
      if (now - q.lastHeartbeat > timeout) {
        q.fail(new EngineError('ABANDONED_QUERY', `Query ${q.id} was abandoned by the client, as it may have exited or stopped checking for query results. Query results have not been accessed since ${new Date(q.lastHeartbeat).toISOString()}: currentTime ${new Date(now).toISOString()}`));
      }
    }
    const maxHistory = this.options.maxHistory ?? DEFAULT_MAX_HISTORY;
    const ttl = this.options.historyTtlMs ?? 15 * 60_000;
    // Every query in the table is live or ended; `ended` has them oldest first.
    let excess = this.queries.size - this.live.size - maxHistory;
    const ended = this.ended;
    for (let q = ended.peek(); q !== undefined; q = ended.peek()) {
      if (this.queries.get(q.id) === q) {
        if (excess <= 0 && now - (q.endTime ?? now) <= ttl) break;
        this.queries.delete(q);
        excess--;
      }
      ended.shift();
    }
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const q of this.queries.values()) if (!q.done) q.fail(new EngineError('SERVER_SHUTTING_DOWN', 'Server is shutting down'));
  }
}

function filterLike(values: readonly string[], like: string | undefined): string[] {
  const sorted = [...values].sort();
  if (like === undefined) return sorted;
  const m = likeMatcher(like, null);
  return sorted.filter(m);
}

const DISABLED_RULES = 'disabled_rules';

/** VALUES pages of the plans' stages, built on first use (see splitsFor). */
const valuesPages = new WeakMap<object, Page>();

function planKey(query: Query): PlanKey {
  const s = query.session;
  return { sql: plannedSql(query), catalog: s.catalog, schema: s.schema, disabledRules: s.properties[DISABLED_RULES] };
}

/** The text a query plans: its own, or for EXECUTE the prepared statement with its parameters bound. */
function plannedSql(query: Query): string {
  return query.boundSql ?? query.sql;
}

/** EXECUTE name USING ...: the client's prepared statement `name` with the parameters in place; other statements as sent. */
function boundStatement(query: Query): string {
  if (!/^\s*EXECUTE\b/iu.test(query.sql)) return query.sql;
  const statement = parseStatement(query.sql);
  if (statement.kind !== 'execute') return query.sql;
  return bindParameters(preparedStatement(query, statement.name), statement.parameters);
}

/** The client's prepared statement `name` (X-…-Prepared-Statement); NOT_FOUND when it sent none. */
function preparedStatement(query: Query, name: string): string {
  const sql = query.session.preparedStatements?.[name];
  if (sql === undefined) throw new EngineError('NOT_FOUND', `Prepared statement not found: ${name}`, { lineNumber: 1, columnNumber: 1 });
  return sql;
}

/** The one session property there is (disabled_rules); others fail as Trino's unknown ones do. */
function requireSessionProperty(name: string): void {
  if (name !== DISABLED_RULES) throw new EngineError('INVALID_SESSION_PROPERTY', `Session property '${name}' does not exist`, { lineNumber: 1, columnNumber: 1 });
}

/** A name as SHOW CREATE writes it: bare when a plain lower-case identifier, else double-quoted. */
function quoteIdentifier(name: string): string {
  return /^[a-z_][a-z0-9_]*$/u.test(name) ? name : `"${name.replace(/"/gu, '""')}"`;
}

/** A statement that changes the session and returns no rows: answered with its update type. */
function finishedUpdate(query: Query, updateType: string): undefined {
  query.updateType = updateType;
  query.names = [];
  query.types = [];
  return undefined;
}

/** The `disabled_rules` session property: rule names, comma separated; an unknown name fails the query. */
function disabledRules(properties: Readonly<Record<string, string>>): ReadonlySet<string> {
  const value = properties[DISABLED_RULES];
  if (value === undefined || value.trim() === '') return new Set();
  const names = value.split(',').map((n) => n.trim().toLowerCase()).filter((n) => n !== '');
  for (const name of names) {
    if (!RULE_NAMES.includes(name)) {
      throw new EngineError('INVALID_SESSION_PROPERTY', `Invalid value for session property '${DISABLED_RULES}': unknown rule '${name}' (rules: ${RULE_NAMES.join(', ')})`);
    }
  }
  return new Set(names);
}

/** Catalogs whose rows depend on who reads them (MetadataViewer). */
const VIEWER_CATALOGS = new Set(['system', 'identity']);

/** Whether a plan scans a table whose rows depend on who reads it: information_schema, system, identity. */
function readsMetadata(plan: QueryPlan): boolean {
  for (const stage of plan.stages) {
    const scan = stage.scan;
    if (scan !== undefined && 'table' in scan && (scan.table.schema === 'information_schema' || VIEWER_CATALOGS.has(scan.table.catalog))) return true;
  }
  return false;
}
