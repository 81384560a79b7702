import { describe, expect, it } from 'vitest';
import os from 'node:os';
import { ConfigError, HelpRequested, defaultConfig, loadConfig, machineMemoryBytes, redactConfig } from '../src/config.js';

describe('loadConfig', () => {
  it('has defaults', () => {
    expect(loadConfig([], {})).toEqual({
      host: '0.0.0.0',
      port: 8080,
      dataDir: './data',
      workers: os.availableParallelism(),
      queryMaxMemoryBytes: 1024 ** 3,
      queryMaxTotalMemoryBytes: Math.floor(0.7 * machineMemoryBytes()),
      maxRunningQueries: 4 * os.availableParallelism(),
      maxQueuedQueries: 1000,
      memoryMaxDataBytes: 2 * 1024 ** 3,
      queryClientTimeoutMs: 300_000,
      queryMaxHistory: 100,
      maxBodyBytes: 1024 ** 2,
      logLevel: 'info',
      adminUsername: 'admin',
      adminPassword: 'admin',
      adminCredentialsDefaulted: true,
      environment: 'production',
      rebuildIdentity: false,
      exitAfterRebuild: false,
      authentication: true,
      sqlRealm: 'master',
      allowInsecurePassword: false,
      internalSharedSecret: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
      tlsSelfSigned: false,
    });
    // The internal secret is random per start unless given.
    expect(loadConfig([], {}).internalSharedSecret).not.toBe(loadConfig([], {}).internalSharedSecret);
  });

  it('takes the SQL security settings, and TLS files only as a pair', () => {
    const c = loadConfig(['--authentication', 'off', '--sql-realm', 'acme', '--access-control-file', '/etc/rules.json', '--allow-insecure-password'], { INTERNAL_SHARED_SECRET: 'x'.repeat(20) });
    expect(c).toMatchObject({ authentication: false, sqlRealm: 'acme', accessControlFile: '/etc/rules.json', allowInsecurePassword: true, internalSharedSecret: 'x'.repeat(20) });
    expect(redactConfig(c).internalSharedSecret).toBe('[redacted]');
    expect(() => loadConfig(['--tls-cert', 'c.pem'], {})).toThrow(/--tls-cert needs --tls-key/);
    expect(() => loadConfig(['--tls-key', 'k.pem'], {})).toThrow(/--tls-key needs --tls-cert/);
    expect(() => loadConfig(['--internal-shared-secret', 'short'], {})).toThrow(/at least 16 characters/);
    expect(loadConfig(['--tls-self-signed'], {}).tlsSelfSigned).toBe(true);
  });

  it('reads the environment', () => {
    const c = loadConfig([], {
      PORT: '9090', HOST: '127.0.0.1', DATA_DIR: '/tmp/d', WORKERS: '3', QUERY_MAX_MEMORY: '512MB', QUERY_CLIENT_TIMEOUT: '30s',
      MAX_BODY_SIZE: '2MB', LOG_LEVEL: 'debug', ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 's3cret',
      QUERY_MAX_HISTORY: '50',
    });
    expect(c).toMatchObject({
      port: 9090, host: '127.0.0.1', dataDir: '/tmp/d', workers: 3, queryMaxMemoryBytes: 512 * 1024 ** 2, queryClientTimeoutMs: 30_000,
      maxBodyBytes: 2 * 1024 ** 2, logLevel: 'debug', adminUsername: 'root', adminPassword: 's3cret', adminCredentialsDefaulted: false,
      queryMaxHistory: 50,
    });
  });

  it('takes the admission and server-wide memory limits; the running limit follows the workers unless given', () => {
    expect(loadConfig([], { MAX_RUNNING_QUERIES: '3', MAX_QUEUED_QUERIES: '0', QUERY_MAX_TOTAL_MEMORY: '3GB' })).toMatchObject({ maxRunningQueries: 3, maxQueuedQueries: 0, queryMaxTotalMemoryBytes: 3 * 1024 ** 3 });
    expect(loadConfig(['--max-running-queries', '7', '--max-queued-queries=5', '--query-max-total-memory', '100MB'], { MAX_RUNNING_QUERIES: '3' })).toMatchObject({ maxRunningQueries: 7, maxQueuedQueries: 5, queryMaxTotalMemoryBytes: 100 * 1024 ** 2 });
    expect(loadConfig(['--workers', '3'], {}).maxRunningQueries).toBe(12);
    expect(machineMemoryBytes()).toBeGreaterThan(0);
    expect(machineMemoryBytes()).toBeLessThanOrEqual(os.totalmem());
    expect(() => loadConfig(['--max-running-queries', '0'], {})).toThrow(/--max-running-queries: must be at least 1/);
    expect(() => loadConfig([], { MAX_QUEUED_QUERIES: '-1' })).toThrow(/MAX_QUEUED_QUERIES: must be a whole number/);
    expect(() => loadConfig(['--query-max-total-memory', 'lots'], {})).toThrow(/--query-max-total-memory/);
  });

  it('lets flags win over the environment, in both --flag value and --flag=value forms', () => {
    const c = loadConfig(['--port', '7000', '--data-dir=./other', '--workers', '2', '--query-max-memory', '2GB', '--max-body-size=64kB', '--log-level', 'warn', '--rebuild-identity'], {
      PORT: '9090', DATA_DIR: '/tmp/d', WORKERS: '8', LOG_LEVEL: 'debug',
    });
    expect(c).toMatchObject({ port: 7000, dataDir: './other', workers: 2, queryMaxMemoryBytes: 2 * 1024 ** 3, maxBodyBytes: 64 * 1024, logLevel: 'warn', rebuildIdentity: true });
  });

  it('treats the admin credentials as defaulted only when neither is given', () => {
    expect(loadConfig(['--admin-password', 'x'], {}).adminCredentialsDefaulted).toBe(false);
    expect(loadConfig([], { ADMIN_USERNAME: 'boss' })).toMatchObject({ adminUsername: 'boss', adminPassword: 'admin', adminCredentialsDefaulted: false });
  });

  it.each([
    [['--port', 'eighty'], {}, /--port: must be a whole number/],
    [['--port', '70000'], {}, /--port: must be at most 65535/],
    [[], { PORT: '-1' }, /environment variable PORT: must be a whole number/],
    [['--workers', '0'], {}, /--workers: must be at least 1/],
    [['--query-max-memory', 'lots'], {}, /--query-max-memory: data size is not valid: 'lots'/],
    [[], { QUERY_CLIENT_TIMEOUT: '5 minutes' }, /QUERY_CLIENT_TIMEOUT: duration is not valid/],
    [['--log-level', 'loud'], {}, /--log-level: must be one of/],
    [['--admin-password', ''], {}, /--admin-password: must not be empty/],
    [['--bogus'], {}, /unknown argument '--bogus'/],
    [['--port'], {}, /--port needs a value/],
    [['--port', '--host', 'x'], {}, /--port needs a value/],
    [['--external-url', 'sql.example.com'], {}, /--external-url: must be an absolute http/],
    [[], { EXTERNAL_URL: 'ftp://sql.example.com' }, /EXTERNAL_URL: must be an http/],
    [['--external-url', 'https://u:p@sql.example.com'], {}, /--external-url: must be an http.* without credentials/],
  ] as const)('rejects %j %j with a clear message and exit code 2', (argv, env, message) => {
    try {
      loadConfig(argv, env);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toMatch(message);
      expect((error as ConfigError).exitCode).toBe(2);
    }
  });

  it('takes an external URL without its trailing slash', () => {
    expect(loadConfig(['--external-url', 'https://sql.example.com:8443/'], {}).externalUrl).toBe('https://sql.example.com:8443');
    expect(loadConfig([], { EXTERNAL_URL: 'http://proxy/trino/' }).externalUrl).toBe('http://proxy/trino');
    expect(loadConfig([], {}).externalUrl).toBeUndefined();
  });

  it('answers --help with the usage text', () => {
    try {
      loadConfig(['--port', '1', '--help'], {});
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(HelpRequested);
      const usage = (error as HelpRequested).usage;
      for (const word of ['--port', 'PORT', '--data-dir', 'DATA_DIR', 'QUERY_CLIENT_TIMEOUT', '--admin-password', 'default: 1GB']) expect(usage).toContain(word);
    }
  });

  it('defaultConfig is loopback, port 0, silent, with overrides', () => {
    expect(defaultConfig()).toMatchObject({ host: '127.0.0.1', port: 0, logLevel: 'silent' });
    expect(defaultConfig({ workers: 1 }).workers).toBe(1);
  });

  it('redacts the admin password for logging', () => {
    expect(redactConfig(loadConfig([], { ADMIN_PASSWORD: 'hunter2' }))).toMatchObject({ adminPassword: '[redacted]' });
    expect(JSON.stringify(redactConfig(loadConfig([], { ADMIN_PASSWORD: 'hunter2' })))).not.toContain('hunter2');
  });
});
