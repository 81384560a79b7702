import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openIdentityService } from '../src/identity/service.js';
import * as repo from '../src/identity/store/repo.js';
import { createRealm, newUser, deleteUser } from '../src/identity/managers.js';
import { generateRealmKeys } from '../src/identity/oidc/keys.js';
import type { RealmEntity } from '../src/identity/store/entities.js';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'identity-store-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('identity store', () => {
  it('bootstraps master with Keycloak defaults', async () => {
    const svc = await openIdentityService({ dataDir: tmp(), adminUsername: 'admin', adminPassword: 'pw' });
    const master = svc.realm('master')!;
    expect(master).toBeDefined();
    const names = repo.listRoles(svc.store, master.id, '').map((r) => r.name).sort();
    expect(names).toEqual(['admin', 'create-realm', 'default-roles-master', 'offline_access', 'uma_authorization']);
    const clients = repo.listClients(svc.store, master.id).map((c) => c.clientId);
    expect(clients).toEqual(['account', 'account-console', 'admin-cli', 'broker', 'master-realm', 'security-admin-console']);
    const mr = repo.clientByClientId(svc.store, master.id, 'master-realm')!;
    expect(repo.listRoles(svc.store, master.id, mr.id)).toHaveLength(18);
    expect(repo.listClientScopes(svc.store, master.id)).toHaveLength(13);
    const admin = repo.userByUsername(svc.store, master.id, 'admin')!;
    expect(admin.attributes.is_temporary_admin).toEqual(['true']);
    expect(await svc.checkPassword(admin, 'pw')).toBe(true);
    expect(await svc.checkPassword(admin, 'nope')).toBe(false);
    await svc.close();
  });

  it('rebuilds every entity and index from the log alone', async () => {
    const dir = tmp();
    const svc = await openIdentityService({ dataDir: dir, adminPassword: 'pw', adminUsername: 'admin' });
    const keys = await generateRealmKeys();
    await svc.store.write(undefined, (tx) => createRealm(tx, { rep: { realm: 'demo', enabled: true }, keys }));
    const realm = svc.realm('demo') as RealmEntity;
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        svc.store.write(undefined, (tx) => {
          tx.realmId = realm.id;
          const u = newUser(tx, tx.get<RealmEntity>('realms', realm.id)!, { username: `u${i}`, email: `u${i}@x.org`, enabled: true, attributes: { dept: [`d${i % 3}`] } }, []);
          ids.push(u.id);
          tx.record({ operationType: 'CREATE', resourceType: 'USER', resourcePath: `users/${u.id}` });
        }),
      ),
    );
    await svc.store.write(undefined, (tx) => deleteUser(tx, tx.get('users', ids[5]!)!));
    const before = svc.store.dump();
    expect(before.userByUsername!.filter(([k]) => (k as string[])[0] === realm.id)).toHaveLength(199);
    await svc.store.rebuildFromLog();
    const after = svc.store.dump();
    expect(after).toEqual(before);
    await svc.close();
    // Reopen: state survives and the sequence continues.
    const svc2 = await openIdentityService({ dataDir: dir, adminPassword: 'pw', adminUsername: 'admin', rebuild: true });
    expect(svc2.store.dump()).toEqual(before);
    await svc2.close();
  });

  it('rejects a duplicate username inside concurrent writes, changing nothing', async () => {
    const svc = await openIdentityService({ dataDir: tmp(), adminPassword: 'pw', adminUsername: 'admin' });
    const master = svc.realm('master')!;
    const seq = svc.store.lastSeq();
    const results = await Promise.allSettled(
      [0, 1].map(() => svc.store.write(undefined, (tx) => newUser(tx, master, { username: 'dup' }, []))),
    );
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(svc.store.lastSeq()).toBe(seq + 1);
    await svc.close();
  });
});
