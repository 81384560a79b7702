// One typed configuration from command-line flags and environment variables. Flags win over the
// environment, the environment over defaults. Every value is checked by one zod schema; a bad value
// is a ConfigError (exit code 2) naming the flag or variable it came from.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { z } from 'zod';
import { LOG_LEVELS } from './util/logger.js';
import { parseDataSize, parseDuration } from './util/wire-format.js';

/** One option: its flag, its environment variable, its default (as the user would type it), its help. */
interface OptionSpec {
  readonly key: keyof RawConfig;
  readonly flag: string;
  readonly env?: string;
  readonly value: string; // placeholder shown in --help; '' for boolean switches
  readonly defaultText: string;
  readonly help: string;
}

const OPTIONS: readonly OptionSpec[] = [
  { key: 'host', flag: '--host', env: 'HOST', value: '<address>', defaultText: '0.0.0.0', help: 'interface to listen on' },
  { key: 'externalUrl', flag: '--external-url', env: 'EXTERNAL_URL', value: '<url>', defaultText: 'from each request\'s Host', help: 'the URL clients reach this server by (e.g. behind a proxy); every nextUri, infoUri and Location is built on it instead of the request\'s Host header' },
  { key: 'port', flag: '--port', env: 'PORT', value: '<n>', defaultText: '8080', help: 'TCP port; 0 picks a free port' },
  { key: 'dataDir', flag: '--data-dir', env: 'DATA_DIR', value: '<path>', defaultText: './data', help: 'folder for the identity store and generated data' },
  { key: 'workers', flag: '--workers', env: 'WORKERS', value: '<n>', defaultText: 'number of cores', help: 'worker threads executing query tasks' },
  { key: 'queryMaxMemory', flag: '--query-max-memory', env: 'QUERY_MAX_MEMORY', value: '<size>', defaultText: '1GB', help: 'memory limit of one query (e.g. 512MB)' },
  { key: 'queryMaxTotalMemory', flag: '--query-max-total-memory', env: 'QUERY_MAX_TOTAL_MEMORY', value: '<size>', defaultText: "70% of the machine's memory", help: 'memory all running queries may hold together; the query that would cross it fails (EXCEEDED_GLOBAL_MEMORY_LIMIT)' },
  { key: 'maxRunningQueries', flag: '--max-running-queries', env: 'MAX_RUNNING_QUERIES', value: '<n>', defaultText: '4 per worker', help: 'statements planned or executed at once; more wait QUEUED, first in first out' },
  { key: 'maxQueuedQueries', flag: '--max-queued-queries', env: 'MAX_QUEUED_QUERIES', value: '<n>', defaultText: '1000', help: 'statements waiting for a running slot; more fail at once (QUERY_QUEUE_FULL)' },
  { key: 'memoryMaxData', flag: '--memory-max-data', env: 'MEMORY_MAX_DATA', value: '<size>', defaultText: '2GB', help: 'bytes all tables of the memory catalog may hold together' },
  { key: 'queryClientTimeout', flag: '--query-client-timeout', env: 'QUERY_CLIENT_TIMEOUT', value: '<duration>', defaultText: '5m', help: 'a query whose results nobody polls for this long is abandoned' },
  { key: 'queryMaxHistory', flag: '--query-max-history', env: 'QUERY_MAX_HISTORY', value: '<n>', defaultText: '100', help: 'finished queries kept for /v1/query (like Trino query.max-history)' },
  { key: 'maxBodySize', flag: '--max-body-size', env: 'MAX_BODY_SIZE', value: '<size>', defaultText: '1MB', help: 'largest accepted request body; larger ones get 413' },
  { key: 'logLevel', flag: '--log-level', env: 'LOG_LEVEL', value: '<level>', defaultText: 'info', help: LOG_LEVELS.join(', ') },
  { key: 'adminUsername', flag: '--admin-username', env: 'ADMIN_USERNAME', value: '<name>', defaultText: 'admin', help: 'initial administrator of the identity service' },
  { key: 'adminPassword', flag: '--admin-password', env: 'ADMIN_PASSWORD', value: '<secret>', defaultText: 'admin', help: 'its password (never logged; the default logs a warning)' },
  { key: 'environment', flag: '--environment', env: 'NODE_ENVIRONMENT', value: '<name>', defaultText: 'production', help: 'environment name reported by /v1/info and /v1/status' },
  { key: 'authentication', flag: '--authentication', env: 'AUTHENTICATION', value: '<on|off>', defaultText: 'on', help: 'credentials on /v1 (Basic or bearer, users of --sql-realm); off lets anyone run SQL as any user, for local benchmarking only' },
  { key: 'sqlRealm', flag: '--sql-realm', env: 'SQL_REALM', value: '<realm>', defaultText: 'master', help: 'the identity realm whose users and tokens may run SQL' },
  { key: 'accessControlFile', flag: '--access-control-file', env: 'ACCESS_CONTROL_FILE', value: '<path>', defaultText: 'built-in rules', help: "Trino file-based access-control rules (JSON); without one, realm role admin may do everything, others read only" },
  { key: 'allowInsecurePassword', flag: '--allow-insecure-password', env: 'ALLOW_INSECURE_PASSWORD', value: '', defaultText: 'off', help: 'accept Basic passwords over plain HTTP from non-loopback clients' },
  { key: 'internalSharedSecret', flag: '--internal-shared-secret', env: 'INTERNAL_SHARED_SECRET', value: '<secret>', defaultText: 'random per start', help: 'the secret internal task requests carry (X-Trino-Internal-Secret); never logged' },
  { key: 'tlsCert', flag: '--tls-cert', env: 'TLS_CERT', value: '<path>', defaultText: 'none', help: 'PEM certificate (chain): serve HTTPS on the same port' },
  { key: 'tlsKey', flag: '--tls-key', env: 'TLS_KEY', value: '<path>', defaultText: 'none', help: 'PEM private key of --tls-cert' },
  { key: 'tlsSelfSigned', flag: '--tls-self-signed', env: 'TLS_SELF_SIGNED', value: '', defaultText: 'off', help: 'serve HTTPS with a certificate generated at start (local use)' },
  { key: 'rebuildIdentity', flag: '--rebuild-identity', value: '', defaultText: 'off', help: 'rebuild the identity tables from the event log at startup' },
  { key: 'exitAfterRebuild', flag: '--exit-after-rebuild', value: '', defaultText: 'off', help: 'exit after --rebuild-identity instead of serving' },
];

type RawConfig = {
  host?: string;
  externalUrl?: string;
  port?: string;
  dataDir?: string;
  workers?: string;
  queryMaxMemory?: string;
  queryMaxTotalMemory?: string;
  maxRunningQueries?: string;
  maxQueuedQueries?: string;
  memoryMaxData?: string;
  queryClientTimeout?: string;
  queryMaxHistory?: string;
  maxBodySize?: string;
  logLevel?: string;
  adminUsername?: string;
  adminPassword?: string;
  environment?: string;
  rebuildIdentity?: string;
  exitAfterRebuild?: string;
  authentication?: string;
  sqlRealm?: string;
  accessControlFile?: string;
  allowInsecurePassword?: string;
  internalSharedSecret?: string;
  tlsCert?: string;
  tlsKey?: string;
  tlsSelfSigned?: string;
};

const sizeText = z.string().transform((text, ctx) => {
  try {
    return parseDataSize(text);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

const durationText = z.string().transform((text, ctx) => {
  try {
    return parseDuration(text);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

const integerText = (min: number, max: number) =>
  z
    .string()
    .regex(/^\s*\d+\s*$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

const switchText = z
  .enum(['on', 'off', 'true', 'false', '1', '0', 'yes', 'no'], { message: 'must be on or off' })
  .transform((v) => v === 'on' || v === 'true' || v === '1' || v === 'yes');

const nonEmpty = z.string().trim().min(1, 'must not be empty');

/** Memory this process may use: the machine's, or its container's (cgroup) limit when lower. */
export function machineMemoryBytes(): number {
  const total = os.totalmem();
  const constrained = process.constrainedMemory?.() ?? 0;
  return constrained > 0 && constrained < total ? constrained : total;
}

/**
 * 70% of the machine's memory: what query accounting does not see (the server's own heap, cached
 * TPC-H columns, memory-catalog tables, V8's headroom) and the overshoot of a reservation that is
 * checked after each driver rather than before it need the rest.
 */
export function defaultQueryMaxTotalMemory(): number {
  return Math.floor(machineMemoryBytes() * 0.7);
}

/**
 * Four running statements per worker thread: one heavy query already keeps every worker busy (its
 * splits go to all of them), so more at once only divide the CPU and multiply the memory held; the
 * slack covers statements waiting on their client or on coordinator-side work.
 */
export function defaultMaxRunningQueries(workers: number): number {
  return 4 * workers;
}

/** The schema: raw text in, typed configuration out. */
const ConfigSchema = z.object({
  host: nonEmpty.default('0.0.0.0'),
  port: integerText(0, 65535).default(8080),
  externalUrl: z
    .string()
    .transform((text, ctx) => {
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be an absolute http:// or https:// URL' });
        return z.NEVER;
      }
      if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.search || url.hash) {
        ctx.addIssue({ code: 'custom', message: 'must be an http:// or https:// URL without credentials, query or fragment' });
        return z.NEVER;
      }
      return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
    })
    .optional(),
  dataDir: nonEmpty.default('./data'),
  workers: integerText(1, 1024).default(() => os.availableParallelism()),
  queryMaxMemory: sizeText.pipe(z.number().positive('must be positive')).default(1024 ** 3),
  queryMaxTotalMemory: sizeText.pipe(z.number().positive('must be positive')).default(() => defaultQueryMaxTotalMemory()),
  maxRunningQueries: integerText(1, 1_000_000).optional(),
  maxQueuedQueries: integerText(0, 1_000_000).default(1000),
  memoryMaxData: sizeText.pipe(z.number().positive('must be positive')).default(2 * 1024 ** 3),
  queryClientTimeout: durationText.pipe(z.number().positive('must be positive')).default(5 * 60_000),
  queryMaxHistory: integerText(0, 1_000_000).default(100),
  maxBodySize: sizeText.pipe(z.number().positive('must be positive')).default(1024 ** 2),
  logLevel: z.enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  adminUsername: nonEmpty.optional(),
  adminPassword: z.string().min(1, 'must not be empty').optional(),
  environment: nonEmpty.regex(/^[a-z0-9_]+$/, 'must be lower-case letters, digits and _').default('production'),
  rebuildIdentity: switchText.default(false),
  exitAfterRebuild: switchText.default(false),
  authentication: switchText.default(true),
  sqlRealm: nonEmpty.default('master'),
  accessControlFile: nonEmpty.optional(),
  allowInsecurePassword: switchText.default(false),
  internalSharedSecret: z.string().min(16, 'must be at least 16 characters').optional(),
  tlsCert: nonEmpty.optional(),
  tlsKey: nonEmpty.optional(),
  tlsSelfSigned: switchText.default(false),
});

export interface Config {
  readonly host: string;
  /** The base URL clients reach the server by, without a trailing slash; unset: each request's valid Host. */
  readonly externalUrl?: string;
  readonly port: number;
  readonly dataDir: string;
  readonly workers: number;
  /** Bytes. */
  readonly queryMaxMemoryBytes: number;
  /** Bytes all running queries may hold together. */
  readonly queryMaxTotalMemoryBytes: number;
  /** Statements planned or executed at once; more wait in a queue. */
  readonly maxRunningQueries: number;
  /** Statements the queue holds; more fail with QUERY_QUEUE_FULL. */
  readonly maxQueuedQueries: number;
  /** Bytes all memory-catalog tables may hold together. */
  readonly memoryMaxDataBytes: number;
  /** Milliseconds. */
  readonly queryClientTimeoutMs: number;
  /** Finished queries kept for /v1/query. */
  readonly queryMaxHistory: number;
  /** Bytes. */
  readonly maxBodyBytes: number;
  readonly logLevel: (typeof LOG_LEVELS)[number];
  readonly adminUsername: string;
  readonly adminPassword: string;
  /** True when neither the admin username nor the password was given: startup warns loudly. */
  readonly adminCredentialsDefaulted: boolean;
  readonly environment: string;
  readonly rebuildIdentity: boolean;
  readonly exitAfterRebuild: boolean;
  /** Credentials wanted on /v1 (off: the session headers name the user). */
  readonly authentication: boolean;
  /** The realm whose users and tokens run SQL. */
  readonly sqlRealm: string;
  readonly accessControlFile?: string;
  readonly allowInsecurePassword: boolean;
  /** Internal task requests' secret; random per start unless given. */
  readonly internalSharedSecret: string;
  /** TLS: PEM files, or a certificate generated at start. */
  readonly tlsCert?: string;
  readonly tlsKey?: string;
  readonly tlsSelfSigned: boolean;
}

/** A configuration problem; `main` prints the message and exits with `exitCode` (2). */
export class ConfigError extends Error {
  readonly exitCode = 2;
}

/** `--help` was given; `main` prints `usage` and exits 0. */
export class HelpRequested extends Error {
  readonly exitCode = 0;
  constructor(readonly usage: string) {
    super('help requested');
  }
}

/**
 * Builds the configuration from flags (`--port 8080` or `--port=8080`) and environment variables.
 * Throws ConfigError for unknown flags, missing flag values and invalid values; HelpRequested for
 * `--help`/`-h`.
 */
export function loadConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Config {
  const fromEnv: RawConfig = {};
  const source = new Map<keyof RawConfig, string>();
  for (const option of OPTIONS) {
    const value = option.env ? env[option.env] : undefined;
    if (value !== undefined && value !== '') {
      fromEnv[option.key] = value;
      source.set(option.key, `environment variable ${option.env}`);
    }
  }

  const fromFlags: RawConfig = {};
  const byFlag = new Map(OPTIONS.map((o) => [o.flag, o] as const));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') throw new HelpRequested(usage());
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const option = byFlag.get(name);
    if (!option) throw new ConfigError(`unknown argument '${arg}' (see --help)`);
    let value: string;
    if (eq > 0 && name !== arg) value = arg.slice(eq + 1);
    else if (option.value === '') value = 'on';
    else {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith('--') && byFlag.has(next.split('=')[0]!))) {
        throw new ConfigError(`${option.flag} needs a value ${option.value}`);
      }
      value = next;
      i++;
    }
    fromFlags[option.key] = value;
    source.set(option.key, `${option.flag}`);
  }

  const raw: RawConfig = { ...fromEnv, ...fromFlags };
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const key = issue.path[0] as keyof RawConfig;
      const where = source.get(key) ?? key;
      return `${where}: ${issue.message} (got '${raw[key] ?? ''}')`;
    });
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const c = parsed.data;
  if ((c.tlsCert === undefined) !== (c.tlsKey === undefined)) {
    throw new ConfigError(`invalid configuration:\n  ${c.tlsCert === undefined ? '--tls-key needs --tls-cert' : '--tls-cert needs --tls-key'}`);
  }
  if (c.tlsCert !== undefined && c.tlsSelfSigned) throw new ConfigError('invalid configuration:\n  --tls-self-signed and --tls-cert exclude each other');
  return {
    host: c.host,
    ...(c.externalUrl === undefined ? {} : { externalUrl: c.externalUrl }),
    port: c.port,
    dataDir: c.dataDir,
    workers: c.workers,
    queryMaxMemoryBytes: c.queryMaxMemory,
    queryMaxTotalMemoryBytes: c.queryMaxTotalMemory,
    maxRunningQueries: c.maxRunningQueries ?? defaultMaxRunningQueries(c.workers),
    maxQueuedQueries: c.maxQueuedQueries,
    memoryMaxDataBytes: c.memoryMaxData,
    queryClientTimeoutMs: c.queryClientTimeout,
    queryMaxHistory: c.queryMaxHistory,
    maxBodyBytes: c.maxBodySize,
    logLevel: c.logLevel,
    adminUsername: c.adminUsername ?? 'admin',
    adminPassword: c.adminPassword ?? 'admin',
    adminCredentialsDefaulted: c.adminUsername === undefined && c.adminPassword === undefined,
    environment: c.environment,
    rebuildIdentity: c.rebuildIdentity,
    exitAfterRebuild: c.exitAfterRebuild,
    authentication: c.authentication,
    sqlRealm: c.sqlRealm,
    ...(c.accessControlFile === undefined ? {} : { accessControlFile: c.accessControlFile }),
    allowInsecurePassword: c.allowInsecurePassword,
    internalSharedSecret: c.internalSharedSecret ?? randomBytes(24).toString('base64url'),
    ...(c.tlsCert === undefined ? {} : { tlsCert: c.tlsCert }),
    ...(c.tlsKey === undefined ? {} : { tlsKey: c.tlsKey }),
    tlsSelfSigned: c.tlsSelfSigned,
  };
}

/** Defaults for tests: port 0 (a free port), loopback only, silent logs; override what a test needs. */
export function defaultConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig([], {}), host: '127.0.0.1', port: 0, logLevel: 'silent', ...overrides };
}

/** The configuration with secrets replaced, for logging. */
export function redactConfig(config: Config): Record<string, unknown> {
  return { ...config, adminPassword: '[redacted]', internalSharedSecret: '[redacted]' };
}

export function usage(): string {
  const rows = OPTIONS.map((o) => {
    const flag = o.value ? `${o.flag} ${o.value}` : o.flag;
    const env = o.env ? `  [env ${o.env}]` : '';
    return `  ${flag.padEnd(34)} ${o.help} (default: ${o.defaultText})${env}`;
  });
  return [
    'Usage: node dist/main.js [options]',
    '',
    'Options (flags win over environment variables):',
    ...rows,
    `  ${'--help, -h'.padEnd(34)} show this help`,
    '',
    'Sizes: 123B, 16kB, 1.5MB, 1GB (binary units). Durations: 500ms, 2s, 5m, 1h.',
  ].join('\n');
}
