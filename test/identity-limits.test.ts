// Over-long ids and names (hardening item 5): path parameters longer than any column cannot name
// anything (404), body fields longer than Keycloak's columns are a 400, and nothing answers 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type KcAdminClient from '@keycloak/keycloak-admin-client';
import { adminClientFor, startIdentity, type Harness } from './identity-harness.js';

let h: Harness;
let kc: KcAdminClient;
beforeAll(async () => {
  h = await startIdentity();
  kc = await adminClientFor(h, { realm: 'lim', enabled: true });
});
afterAll(() => h.close());

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(h.baseUrl + path, {
    method,
    headers: { Authorization: `Bearer ${kc.accessToken}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
};

describe('identity length limits', () => {
  it('answers every admin route with a 5,000-character path parameter without a 5xx', async () => {
    const long = 'x'.repeat(5000);
    const failures: string[] = [];
    let tried = 0;
    for (const { method, pattern } of h.router.routes()) {
      if (!pattern.startsWith('/admin/')) continue;
      const segs = pattern.split('/');
      for (let at = 0; at < segs.length; at++) {
        const seg = segs[at]!;
        if (!seg.startsWith(':') && !seg.startsWith('*')) continue;
        const path = segs.map((s, i) => (i === at ? long : s === ':realm' ? 'lim' : s.startsWith(':') || s.startsWith('*') ? 'abc' : s)).join('/');
        const { status } = await call(method, path, ['GET', 'HEAD', 'DELETE'].includes(method) ? undefined : {});
        tried++;
        // A `:param` is refused before any lookup; a `*rest` tail is looked up and found missing.
        if (status >= 500 || (seg.startsWith(':') && status !== 404)) failures.push(`${status} ${method} ${pattern} (${seg})`);
      }
    }
    expect(tried).toBeGreaterThan(500);
    expect(failures).toEqual([]);
  });

  it('answers a 404 naming what was not found', async () => {
    expect(await call('GET', `/admin/realms/${'r'.repeat(5000)}`)).toEqual({ status: 404, body: { error: 'Realm not found.' } });
    expect(await call('GET', `/admin/realms/lim/users/${'u'.repeat(300)}`)).toEqual({ status: 404, body: { error: 'User not found' } });
  });

  it('refuses body fields longer than their Keycloak column with a 400, changing nothing', async () => {
    const seq = h.svc.store.lastSeq();
    const tooLong = (field: string, params: unknown[] = [field, 255]) => ({ status: 400, body: { errorMessage: 'error-invalid-length-too-long', field, params } });
    expect(await call('POST', '/admin/realms', { realm: 'r'.repeat(1960) })).toEqual(tooLong('realm'));
    expect(await call('POST', '/admin/realms', { realm: 'ok', id: 'i'.repeat(37) })).toEqual(tooLong('id', ['id', 36]));
    expect(await call('POST', '/admin/realms/lim/roles', { name: 'n'.repeat(70_000) })).toEqual(tooLong('name'));
    expect(await call('POST', '/admin/realms/lim/groups', { name: 'g'.repeat(2000) })).toEqual(tooLong('name'));
    expect(await call('POST', '/admin/realms/lim/clients', { clientId: 'c'.repeat(2000) })).toEqual(tooLong('clientId'));
    expect(await call('POST', '/admin/realms/lim/client-scopes', { name: 's'.repeat(2000) })).toEqual(tooLong('name'));
    expect(await call('POST', '/admin/realms/lim/users', { username: 'u'.repeat(2000) })).toEqual(tooLong('username'));
    expect(await call('POST', '/admin/realms/lim/users', { username: 'ann', attributes: { ['a'.repeat(3000)]: ['v'] } })).toEqual(tooLong('attributes'));
    expect(h.svc.store.lastSeq()).toBe(seq);
    expect(h.svc.realm('r'.repeat(1960))).toBeUndefined();
  });

  it('accepts names of exactly the column length', async () => {
    const n255 = 'é'.repeat(255);
    expect((await call('POST', '/admin/realms/lim/roles', { name: n255 })).status).toBe(201);
    expect(await call('GET', `/admin/realms/lim/roles/${encodeURIComponent(n255)}`)).toMatchObject({ status: 200, body: { name: n255 } });
    expect((await call('POST', '/admin/realms/lim/groups', { name: n255 })).status).toBe(201);
    expect((await call('POST', '/admin/realms', { realm: n255 })).status).toBe(201);
  });

  it('finds nothing for over-long query values', async () => {
    expect(await call('GET', `/admin/realms/lim/users?username=${'u'.repeat(5000)}&exact=true`)).toEqual({ status: 200, body: [] });
    expect(await call('GET', `/admin/realms/lim/group-by-path/${'g'.repeat(5000)}`)).toMatchObject({ status: 404 });
  });
});
