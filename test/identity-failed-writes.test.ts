// A write that fails leaves neither state nor event (hardening item 5): a key LMDB cannot store is
// refused before the write is issued, and a rebuild from the log never meets a record it cannot apply.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { adminClientFor, startIdentity } from './identity-harness.js';
import { openIdentityService } from '../src/identity/service.js';
import { createRealm, newClient, newGroup, newRole } from '../src/identity/managers.js';
import { generateRealmKeys } from '../src/identity/oidc/keys.js';
import { KeyTooLargeError } from '../src/identity/store/keys.js';
import type { LogRecord } from '../src/identity/store/store.js';
import type { RealmEntity } from '../src/identity/store/entities.js';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'identity-failed-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('failed identity writes', () => {
  it('leaves no realm, no event and a rebuildable log after an over-long realm name over HTTP', async () => {
    const dir = tmp();
    const h = await startIdentity({ dir });
    const kc = await adminClientFor(h, { realm: 'fw', enabled: true });
    const name = 'r'.repeat(1960);
    const seq = h.svc.store.lastSeq();
    const before = h.svc.store.dump();
    const headers = { Authorization: `Bearer ${kc.accessToken}`, 'Content-Type': 'application/json' };
    const created = await fetch(`${h.baseUrl}/admin/realms`, { method: 'POST', headers, body: JSON.stringify({ realm: name, enabled: true }) });
    expect(created.status).toBe(400);
    expect((await fetch(`${h.baseUrl}/admin/realms/${name}`, { headers })).status).toBe(404);
    const listed = (await (await fetch(`${h.baseUrl}/admin/realms`, { headers })).json()) as Array<{ realm: string }>;
    expect(listed.map((r) => r.realm).sort()).toEqual(['fw', 'master']);
    expect(h.svc.store.lastSeq()).toBe(seq);
    expect(h.svc.store.dump()).toEqual(before);
    await h.close();
    const svc = await openIdentityService({ dataDir: dir, adminUsername: 'admin', adminPassword: 'admin-pw', rebuild: true });
    expect(svc.store.dump()).toEqual(before);
    await svc.close();
  });

  it('refuses a change whose key LMDB cannot store before anything is issued', async () => {
    const svc = await openIdentityService({ dataDir: tmp(), adminUsername: 'admin', adminPassword: 'pw' });
    const keys = await generateRealmKeys();
    await svc.store.write(undefined, (tx) => createRealm(tx, { rep: { realm: 'demo', enabled: true }, keys }));
    const demo = svc.realm('demo') as RealmEntity;
    const seq = svc.store.lastSeq();
    const before = svc.store.dump();
    const attempts: Array<() => Promise<unknown>> = [
      () => svc.store.write(undefined, (tx) => createRealm(tx, { rep: { realm: 'r'.repeat(1960), enabled: true }, keys })),
      () => svc.store.write(undefined, (tx) => newGroup(tx, demo, '', { name: 'g'.repeat(2000) })),
      () => svc.store.write(undefined, (tx) => newRole(tx, demo.id, '', { name: 'n'.repeat(2000) })),
      () => svc.store.write(undefined, (tx) => newClient(tx, demo, { clientId: 'c'.repeat(2000) })),
    ];
    for (const attempt of attempts) await expect(attempt()).rejects.toBeInstanceOf(KeyTooLargeError);
    // Nothing in memory (writes in flight), nothing committed, no log record.
    expect(svc.realm('r'.repeat(1960))).toBeUndefined();
    expect(svc.store.lastSeq()).toBe(seq);
    await svc.store.settle();
    expect(svc.store.dump()).toEqual(before);
    await svc.store.rebuildFromLog();
    expect(svc.store.dump()).toEqual(before);
    await svc.close();
  });

  it('skips, when rebuilding, a logged record it cannot apply (from a store before keys were checked)', async () => {
    const svc = await openIdentityService({ dataDir: tmp(), adminUsername: 'admin', adminPassword: 'pw' });
    const before = svc.store.dump();
    const seq = svc.store.lastSeq() + 1;
    const master = svc.realm('master')!;
    const phantom = { ...master, id: 'phantom', realm: 'r'.repeat(2500) };
    const record: LogRecord = {
      seq, id: 'x', time: Date.now(), realmId: '', operationType: 'CREATE', resourceType: 'REALM', resourcePath: '', visible: false, details: false,
      changes: [['realms', 'phantom', phantom]],
    };
    await svc.store.db('log').put(seq, record);
    const { skipped } = await svc.store.rebuildFromLog();
    expect(skipped).toEqual([seq]);
    expect(svc.store.dump()).toEqual(before);
    await svc.close();
  });
});
