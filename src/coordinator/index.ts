// The coordinator face: catalogs, the worker pool, the query manager, and the statement, query
// and task resources. (The node resource is registered separately by the app.)

import { CatalogRegistry, type Connector } from '../connectors/catalog.js';
import { MemoryConnector } from '../connectors/memory.js';
import { SystemConnector } from '../connectors/system.js';
import { TpchConnector } from '../connectors/tpch/connector.js';
import { WorkerPool } from '../exec/pool.js';
import type { RouteRegistry } from '../http/types.js';
import type { Logger } from '../util/logger.js';
import { QueryManager } from './query-manager.js';
import { registerQueryRoutes } from './query-resource.js';
import { StandaloneTasks } from './standalone-tasks.js';
import { registerStatementRoutes } from './statement-resource.js';
import { registerTaskRoutes } from './task-resource.js';
import type { SqlSecurity } from './sql-security.js';

export interface CoordinatorOptions {
  readonly router: RouteRegistry;
  readonly logger: Logger;
  readonly workers: number;
  readonly queryMaxMemoryBytes: number;
  /** Bytes all running queries may hold together (unlimited when absent). */
  readonly queryMaxTotalMemoryBytes?: number;
  /** Statements planned or executed at once (unlimited when absent); more wait QUEUED. */
  readonly maxRunningQueries?: number;
  /** Statements waiting for a running slot (unlimited when absent); more fail with QUERY_QUEUE_FULL. */
  readonly maxQueuedQueries?: number;
  /** Bytes the memory catalog's tables may hold together (unlimited when absent). */
  readonly memoryMaxDataBytes?: number;
  readonly queryClientTimeoutMs: number;
  /** Finished queries kept for /v1/query; default 100 (as Trino). */
  readonly queryMaxHistory?: number;
  readonly version: string;
  /** The node's own URI (known once the server listens). */
  readonly nodeUri: () => string;
  /** Catalogs the app adds beside tpch, memory and system (e.g. `identity`), by name. */
  readonly extraCatalogs?: ReadonlyArray<readonly [string, Connector]>;
  /** Authentication and access control of the `/v1` resources; absent: open to anyone (embedded use). */
  readonly security?: SqlSecurity;
  onClose(hook: () => void | Promise<void>): void;
}

export interface Coordinator {
  readonly manager: QueryManager;
  readonly catalogs: CatalogRegistry;
  readonly pool: WorkerPool;
  readonly tpch: TpchConnector;
}

export function registerCoordinator(options: CoordinatorOptions): Coordinator {
  const pool = new WorkerPool(options.workers);
  const tpch = new TpchConnector();
  const catalogs = new CatalogRegistry();
  let manager: QueryManager | undefined;
  catalogs.register('tpch', tpch);
  catalogs.register('memory', new MemoryConnector('memory', { maxDataBytes: options.memoryMaxDataBytes }));
  for (const [name, connector] of options.extraCatalogs ?? []) catalogs.register(name, connector);
  catalogs.register(
    'system',
    new SystemConnector({
      nodes: () => [['coordinator', options.nodeUri(), options.version, true, 'active']],
      queries: (viewer) =>
        (manager?.list() ?? []).filter((q) => !viewer || viewer.canSeeQuery(q.id)).map((q) => [
          q.id,
          q.state,
          q.session.user,
          q.session.source ?? null,
          q.sql,
          (q.planningStartTime ?? Date.now()) - q.createTime,
          q.planningEndTime !== undefined && q.planningStartTime !== undefined ? q.planningEndTime - q.planningStartTime : null,
          q.planningEndTime !== undefined && q.planningStartTime !== undefined ? q.planningEndTime - q.planningStartTime : null,
          q.createTime,
          q.executionStartTime ?? null,
          q.lastHeartbeat,
          q.endTime ?? null,
          q.error?.errorType ?? null,
          q.error?.errorName ?? null,
        ]),
      tasks: (viewer) =>
        (manager?.list() ?? []).filter((q) => !viewer || viewer.canSeeQuery(q.id)).flatMap((q) =>
          (q.execution?.tasks ?? []).map((t) => {
            const out = t.operatorStats[t.operatorStats.length - 1];
            return [
              'coordinator',
              t.taskId,
              `${q.id}.${t.stageId}`,
              q.id,
              t.state,
              t.totalDrivers,
              t.queuedDrivers,
              t.runningDrivers,
              t.completedDrivers,
              Math.round(t.scheduledNanos / 1e6),
              Math.round(t.cpuNanos / 1e6),
              Math.round(t.blockedNanos / 1e6),
              t.rawInputBytes,
              t.rawInputRows,
              t.operatorStats[0]?.outputBytes ?? 0,
              t.operatorStats[0]?.outputPositions ?? 0,
              out?.outputBytes ?? 0,
              out?.outputPositions ?? 0,
              t.fragment.source.kind === 'scan' ? t.rawInputBytes : 0,
              0,
              t.createTime,
              t.startTime ?? null,
              t.lastHeartbeat,
              t.endTime ?? null,
            ];
          }),
        ),
      tableData: (viewer) =>
        catalogs.names().flatMap((name) =>
          (catalogs.unwrap(name)?.heldTables?.() ?? []).filter((t) => !viewer || viewer.canSeeTable(t.catalog, t.schema, t.table)).map((t) => [t.catalog, t.schema, t.table, t.rows, t.columns, t.bytes, t.arrowBytes]),
        ),
    }),
  );
  manager = new QueryManager({
    catalogs,
    pool,
    tpch,
    logger: options.logger,
    memoryLimitBytes: options.queryMaxMemoryBytes,
    totalMemoryLimitBytes: options.queryMaxTotalMemoryBytes,
    maxRunningQueries: options.maxRunningQueries,
    maxQueuedQueries: options.maxQueuedQueries,
    clientTimeoutMs: options.queryClientTimeoutMs,
    maxHistory: options.queryMaxHistory,
    ...(options.security ? { security: options.security } : {}),
  });
  const textPool = (): Promise<Uint8Array> => (manager as QueryManager).sharedTextPool();
  const standalone = new StandaloneTasks(catalogs, { pool, tpch, textPool, memoryLimitBytes: options.queryMaxMemoryBytes, memoryPool: manager.memoryPool });
  const security = options.security;
  const routes = security ? security.guarded(options.router) : options.router;
  registerStatementRoutes(routes, manager, security);
  registerQueryRoutes(routes, manager, security);
  registerTaskRoutes(routes, manager, standalone, security, security ? security.internal(options.router) : options.router);
  options.onClose(async () => {
    manager?.close();
    await pool.close();
  });
  return { manager, catalogs, pool, tpch };
}
