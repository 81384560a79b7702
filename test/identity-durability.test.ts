// A 2xx means on disk (hardening item 5): the identity store's LMDB commits resolve only once synced
// (no overlappingSync), and writes issued together still share one commit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIdentity, type Harness } from './identity-harness.js';
import { newUser } from '../src/identity/managers.js';

let h: Harness;
beforeAll(async () => {
  h = await startIdentity();
});
afterAll(() => h.close());

const lastTxnId = () => (h.svc.store.root.getStats() as { lastTxnId: number }).lastTxnId;

describe('identity store durability', () => {
  it('opens LMDB so that a commit resolves only after it is synced', () => {
    const root = h.svc.store.root as unknown as { overlappingSync?: boolean; noSync?: boolean };
    expect(root.overlappingSync).toBe(false);
    expect(root.noSync).toBeFalsy();
  });

  it('shares commits among writes issued together', async () => {
    const master = h.svc.realm('master')!;
    const before = lastTxnId();
    await Promise.all(Array.from({ length: 200 }, (_, i) => h.svc.store.write(undefined, (tx) => newUser(tx, master, { username: `together-${i}` }, []))));
    // Each commit syncs once for all the writes it holds: 200 writes of one event turn, one commit.
    expect(lastTxnId() - before).toBeLessThanOrEqual(2);
  });

  it('answers 200 concurrent user creations over HTTP, all there afterwards', async () => {
    const res = await fetch(`${h.baseUrl}/realms/master/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password&client_id=admin-cli&username=admin&password=admin-pw',
    });
    const headers = { Authorization: `Bearer ${((await res.json()) as { access_token: string }).access_token}`, 'Content-Type': 'application/json' };
    const statuses = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        fetch(`${h.baseUrl}/admin/realms/master/users`, { method: 'POST', headers, body: JSON.stringify({ username: `durable-${i}`, enabled: true }) }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s !== 201)).toEqual([]);
    expect(await (await fetch(`${h.baseUrl}/admin/realms/master/users/count?search=durable-`, { headers })).json()).toBe(200);
  });
});
