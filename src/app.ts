// Builds the whole server from a configuration: router, subsystems' routes, HTTP listener.
import { readFileSync } from 'node:fs';
import type { Config } from './config.js';
import { Router } from './http/router.js';
import { listen, type HttpServer } from './http/server.js';
import { NodeHealth } from './coordinator/node-health.js';
import { registerNodeRoutes } from './coordinator/node-resource.js';
import { registerCoordinator, type Coordinator } from './coordinator/index.js';
import { createLogger, type Logger } from './util/logger.js';
import { openIdentityService, registerIdentityRoutes, type IdentityService } from './identity/routes.js';
import { SqlAuthenticator } from './identity/sql-authenticator.js';
import { IdentitySqlTables } from './identity/sql-tables.js';
import { IdentityConnector } from './connectors/identity.js';
import { AccessControl } from './coordinator/access-control.js';
import { SqlSecurity } from './coordinator/sql-security.js';
import { tlsOptions } from './http/tls.js';

export interface App {
  readonly port: number;
  /** `http://host:port` clients can use (a wildcard host is shown as 127.0.0.1). */
  readonly baseUrl: string;
  readonly router: Router;
  readonly health: NodeHealth;
  readonly server: HttpServer;
  /** The SQL engine behind /v1: its query manager's execute() is the in-process engine API. */
  readonly coordinator: Coordinator;
  /** The identity service: realms, users and tokens, who also may run SQL. */
  readonly identity: IdentityService;
  /** Stops accepting, drains in-flight requests, then runs the subsystems' close hooks (last registered first). */
  close(): Promise<void>;
}

/** What a subsystem's `register…Routes(ctx)` gets: where to add routes, its settings, and a close hook. */
export interface AppContext {
  readonly router: Router;
  readonly config: Config;
  readonly logger: Logger;
  readonly health: NodeHealth;
  readonly version: string;
  /** Called on close, after the HTTP server has drained; hooks run in reverse registration order. */
  onClose(hook: () => void | Promise<void>): void;
}

export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export async function createApp(config: Config, logger: Logger = createLogger({ level: config.logLevel })): Promise<App> {
  const router = new Router();
  const health = new NodeHealth();
  const closeHooks: Array<() => void | Promise<void>> = [];
  const ctx: AppContext = { router, config, logger, health, version: VERSION, onClose: (hook) => void closeHooks.push(hook) };
  let baseUrl = `http://127.0.0.1:${config.port}`;

  // ── Subsystem routes: one line each (coordinator, identity, ...). Keep this block short. ──────
  const tls = await tlsOptions(config, logger);
  const identity = await openIdentityService({ dataDir: config.dataDir, adminUsername: config.adminUsername, adminPassword: config.adminPassword, rebuild: config.rebuildIdentity, exitAfterRebuild: config.exitAfterRebuild, logger, onClose: ctx.onClose });
  const security = sqlSecurity(config, logger, new SqlAuthenticator(identity, config.sqlRealm), tls !== undefined);
  registerNodeRoutes(router, health, () => baseUrl, { version: VERSION, environment: config.environment, nodeId: 'coordinator' }, security.guarded(router));
  const identityCatalog = new IdentityConnector(new IdentitySqlTables(identity, config.sqlRealm));
  const coordinator = registerCoordinator({ router, logger, workers: config.workers, queryMaxMemoryBytes: config.queryMaxMemoryBytes, queryMaxTotalMemoryBytes: config.queryMaxTotalMemoryBytes, maxRunningQueries: config.maxRunningQueries, maxQueuedQueries: config.maxQueuedQueries, memoryMaxDataBytes: config.memoryMaxDataBytes, queryClientTimeoutMs: config.queryClientTimeoutMs, queryMaxHistory: config.queryMaxHistory, version: VERSION, nodeUri: () => baseUrl, onClose: ctx.onClose, security, extraCatalogs: [['identity', identityCatalog]] });
  registerIdentityRoutes(router, identity);
  // ── end of subsystem routes ───────────────────────────────────────────────────────────────────

  const server = await listen(router, {
    host: config.host,
    port: config.port,
    maxBodyBytes: config.maxBodyBytes,
    ...(tls === undefined ? {} : { tls }),
    ...(config.externalUrl === undefined ? {} : { externalUrl: config.externalUrl }),
    logger,
    recorder: health,
  });
  baseUrl = server.baseUrl;

  let closing: Promise<void> | undefined;
  return {
    port: server.port,
    baseUrl,
    router,
    health,
    server,
    coordinator,
    identity,
    close: () =>
      (closing ??= (async () => {
        await server.close();
        for (const hook of closeHooks.reverse()) {
          try {
            await hook();
          } catch (error) {
            logger.error({ err: error }, 'close hook failed');
          }
        }
      })()),
  };
}

/** The SQL face's guard from the configuration; warns loudly when authentication is off. */
function sqlSecurity(config: Config, logger: Logger, checker: SqlAuthenticator, tls: boolean): SqlSecurity {
  if (!config.authentication) logger.warn({}, '!!! SQL authentication is OFF: anyone who reaches this server runs SQL as any user. Use --authentication off for local benchmarking only. !!!');
  const accessControl = config.accessControlFile === undefined ? undefined : AccessControl.fromFile(config.accessControlFile);
  if (accessControl) logger.info({ file: config.accessControlFile }, 'SQL access control rules loaded');
  return new SqlSecurity({
    authentication: config.authentication,
    checker,
    accessControl,
    internalSecret: config.internalSharedSecret,
    allowInsecurePassword: config.allowInsecurePassword,
    tls,
    logger,
  });
}
