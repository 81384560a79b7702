// The access-control rules in process: Trino's file format, first-match semantics per section,
// the built-in rules, and the guard's refusal of passwords over plain HTTP from other hosts.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AccessControl, type Principal } from '../src/coordinator/access-control.js';
import { SqlSecurity } from '../src/coordinator/sql-security.js';
import { json, type HttpReply, type HttpRequest, type Handler } from '../src/http/types.js';
import { silentLogger } from '../src/util/logger.js';

const user = (name: string, roles: string[] = [], groups: string[] = []): Principal => ({ user: name, roles, groups });

describe('AccessControl', () => {
  it('lets admin do everything and others read, see and kill only their own queries (built-in rules)', () => {
    const rules = AccessControl.defaults();
    const admin = user('root', ['admin']);
    const alice = user('alice', ['offline_access']);
    expect([...rules.tablePrivileges(admin, 'memory', 's', 't')].sort()).toEqual(['DELETE', 'GRANT_SELECT', 'INSERT', 'OWNERSHIP', 'SELECT', 'UPDATE']);
    expect([...rules.tablePrivileges(alice, 'memory', 's', 't')]).toEqual(['SELECT']);
    expect(rules.isSchemaOwner(alice, 'memory', 's')).toBe(false);
    expect(rules.canAccessQuery(alice, 'view', 'alice')).toBe(true);
    expect(rules.canAccessQuery(alice, 'kill', 'bob')).toBe(false);
    expect(rules.canAccessQuery(admin, 'kill', 'bob')).toBe(true);
    expect(rules.canImpersonate(alice, 'bob')).toBe(false);
    expect(rules.canImpersonate(admin, 'bob')).toBe(true);
    expect(rules.readsUnrestricted).toBe(true);
  });

  it('decides by the first matching rule, matching user, role and group by whole regular expressions', () => {
    const rules = AccessControl.fromDocument(
      {
        catalogs: [{ group: '/analysts(/.*)?', catalog: 'tpch', allow: 'read-only' }, { user: 'ops.*', allow: 'all' }, { allow: 'none' }],
        tables: [{ user: 'ops', schema: 'secret', privileges: [] }, { privileges: ['SELECT', 'INSERT'] }],
        queries: [{ role: 'auditor', queryOwner: '.*', allow: ['view'] }, { allow: ['execute'] }],
        impersonation: [{ original_user: 'svc_(.*)', new_user: '$1' }, { original_role: 'admin', new_user: 'root', allow: false }, { original_role: 'admin', new_user: '.*' }],
      },
      'test',
    );
    expect([...rules.tablePrivileges(user('x', [], ['/analysts/eu']), 'tpch', 'tiny', 'nation')]).toEqual(['SELECT']);
    expect(rules.tablePrivileges(user('x', [], ['/analysts-not']), 'tpch', 'tiny', 'nation').size).toBe(0);
    expect(rules.tablePrivileges(user('ops'), 'memory', 'secret', 't').size).toBe(0);
    expect([...rules.tablePrivileges(user('opsx'), 'memory', 'secret', 't')].sort()).toEqual(['INSERT', 'SELECT']);
    // `user: 'ops.*'` is a whole match: 'devops' is not covered.
    expect(rules.canAccessCatalog(user('devops'), 'memory')).toBe(false);
    expect(rules.canAccessQuery(user('a', ['auditor']), 'view', 'b')).toBe(true);
    expect(rules.canAccessQuery(user('a', ['auditor']), 'kill', 'b')).toBe(false);
    expect(rules.canImpersonate(user('svc_etl'), 'etl')).toBe(true);
    expect(rules.canImpersonate(user('svc_etl'), 'bob')).toBe(false);
    expect(rules.canImpersonate(user('x', ['admin']), 'root')).toBe(false);
    expect(rules.canImpersonate(user('x', ['admin']), 'bob')).toBe(true);
    expect(rules.readsUnrestricted).toBe(false);
  });

  it('reads a rules file and names what it cannot take', () => {
    const dir = mkdtempSync(join(tmpdir(), 'acl-'));
    try {
      const file = join(dir, 'rules.json');
      writeFileSync(file, JSON.stringify({ tables: [{ table: 'x', privileges: ['SELECT'] }] }));
      expect(AccessControl.fromFile(file).canSeeTable(user('a'), 'tpch', 'tiny', 'x')).toBe(true);
      writeFileSync(file, '{ not json');
      expect(() => AccessControl.fromFile(file)).toThrow(/is not JSON/);
      writeFileSync(file, JSON.stringify({ tables: [{ table: 'x', privileges: ['READ'] }] }));
      expect(() => AccessControl.fromFile(file)).toThrow(/tables\.0\.privileges\.0/);
      writeFileSync(file, JSON.stringify({ catalogs: [{ catalog: '(', allow: 'all' }] }));
      expect(() => AccessControl.fromFile(file)).toThrow(/catalogs\[0\]\.catalog: invalid regular expression/);
      expect(() => AccessControl.fromFile(join(dir, 'missing.json'))).toThrow(/cannot read access control file .*ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SqlSecurity guard', () => {
  const request = (remoteAddress: string, authorization?: string): HttpRequest =>
    ({ method: 'GET', path: '/v1/query', query: new URLSearchParams(), headers: authorization ? { authorization } : {}, params: {}, body: Buffer.alloc(0), remoteAddress, baseUrl: 'http://h', signal: undefined }) as unknown as HttpRequest;
  const checker = { realmName: 'master', authenticate: () => ({ ok: true as const, identity: user('alice') }), lookup: () => undefined };
  const ok: Handler = () => json(200, {});
  const status = async (security: SqlSecurity, req: HttpRequest): Promise<number> => {
    let handler: Handler = ok;
    security.guarded({ add: (_m, _p, h) => void (handler = h) }).add('GET', '/v1/query', ok);
    return ((await handler(req)) as HttpReply).status;
  };
  const options = { authentication: true, checker, accessControl: undefined, internalSecret: 's'.repeat(32), tls: false, logger: silentLogger() };

  it('refuses a password over plain HTTP from another host unless allowed, and takes it from loopback or over TLS', async () => {
    const basic = 'Basic YWxpY2U6cHc=';
    expect(await status(new SqlSecurity({ ...options, allowInsecurePassword: false }), request('10.1.2.3', basic))).toBe(403);
    expect(await status(new SqlSecurity({ ...options, allowInsecurePassword: true }), request('10.1.2.3', basic))).toBe(200);
    expect(await status(new SqlSecurity({ ...options, allowInsecurePassword: false }), request('127.0.0.1', basic))).toBe(200);
    expect(await status(new SqlSecurity({ ...options, allowInsecurePassword: false, tls: true }), request('10.1.2.3', basic))).toBe(200);
    // A bearer token carries no password: accepted over plain HTTP.
    expect(await status(new SqlSecurity({ ...options, allowInsecurePassword: false }), request('10.1.2.3', 'Bearer x'))).toBe(200);
  });
});
