// Requests racing on the same entity (hardening item 5): whichever loses finds the entity gone and
// answers Keycloak's 404, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type KcAdminClient from '@keycloak/keycloak-admin-client';
import { adminClientFor, startIdentity, type Harness } from './identity-harness.js';

let h: Harness;
let kc: KcAdminClient;
beforeAll(async () => {
  h = await startIdentity();
  kc = await adminClientFor(h, { realm: 'race', enabled: true });
});
afterAll(() => h.close());

/** Writes in flight in another realm, so that a request waiting for the store to settle waits a while. */
const busy = () => Array.from({ length: 20 }, (_, i) => call('POST', '/admin/realms/race/groups', { name: `g${Math.random()}${i}` }));

const call = (method: string, path: string, body?: unknown) =>
  fetch(h.baseUrl + path, {
    method,
    headers: { Authorization: `Bearer ${kc.accessToken}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).then(async (r) => ({ status: r.status, text: await r.text() }));

describe('identity races', () => {
  it('answers 404 to the loser of two deletes of the same realm', async () => {
    await call('POST', '/admin/realms', { realm: 'doomed', enabled: true });
    const load = busy();
    const results = await Promise.all([call('DELETE', '/admin/realms/doomed'), call('DELETE', '/admin/realms/doomed')]);
    await Promise.all(load);
    expect(results.map((r) => r.status).sort()).toEqual([204, 404]);
    expect(results.find((r) => r.status === 404)!.text).toBe(JSON.stringify({ error: 'Realm not found.' }));
  });

  it('answers 404 to a write that awaited (hashing, key generation) while its entity was deleted', async () => {
    const user = await kc.users.create({ realm: 'race', username: 'gone', enabled: true });
    const reset = call('PUT', `/admin/realms/race/users/${user.id}/reset-password`, { type: 'password', value: 'pw-pw-pw-1', temporary: false });
    const [resetDone, deleted] = await Promise.all([reset, call('DELETE', `/admin/realms/race/users/${user.id}`)]);
    expect(deleted.status).toBe(204);
    expect([204, 404]).toContain(resetDone.status);

    const client = await kc.clients.create({ realm: 'race', clientId: 'gone-client' });
    const gen = call('POST', `/admin/realms/race/clients/${client.id}/certificates/jwt.credential/generate`);
    const [genDone, clientDeleted] = await Promise.all([gen, call('DELETE', `/admin/realms/race/clients/${client.id}`)]);
    expect(clientDeleted.status).toBe(204);
    expect([200, 404]).toContain(genDone.status);
  });

});
