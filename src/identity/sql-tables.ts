// The identity service's rows for the `identity` SQL catalog (connectors/identity.ts): one schema
// per realm, tables of users, groups, memberships, roles, role mappings, clients, sessions and
// events. A reader sees a table when the admin API would show it the same data: the SQL realm's
// user is evaluated with the admin permission rules against the realm read (view-users for users,
// groups and sessions; view-clients for clients; view-events for events; any admin role for roles).

import type { IdentityRowsProvider, IdentityTableName } from '../connectors/identity.js';
import { EngineError } from '../util/engine-error.js';
import { RealmAuth } from './admin/permissions.js';
import type { ClientEntity, GroupEntity, RealmEntity, RoleEntity, UserEntity } from './store/entities.js';
import * as repo from './store/repo.js';
import type { TableName } from './store/tables.js';
import type { IdentityService } from './service.js';

export class IdentitySqlTables implements IdentityRowsProvider {
  constructor(
    private readonly identity: IdentityService,
    /** The realm SQL users belong to: a reader's rights are evaluated as that realm's user. */
    private readonly sqlRealm: string,
  ) {}

  schemas(): string[] {
    return repo
      .listRealms(this.identity.store)
      .map((r) => r.realm.toLowerCase())
      .sort();
  }

  private realmOf(schema: string): RealmEntity {
    const realm = repo.listRealms(this.identity.store).find((r) => r.realm.toLowerCase() === schema);
    if (!realm) throw new EngineError('SCHEMA_NOT_FOUND', `Schema 'identity.${schema}' does not exist`);
    return realm;
  }

  rows(schema: string, table: IdentityTableName, reader: string | undefined): unknown[][] {
    const realm = this.realmOf(schema);
    if (reader !== undefined && !this.mayRead(reader, realm, table)) {
      throw new EngineError('PERMISSION_DENIED', `Access Denied: Cannot select from table identity.${schema}.${table}`);
    }
    const store = this.identity.store;
    switch (table) {
      case 'users':
        return this.users(realm).map((u) => [u.id, u.username, u.email ?? null, u.firstName ?? null, u.lastName ?? null, u.enabled, u.emailVerified, u.createdTimestamp]);
      case 'groups':
        return this.groups(realm).map((g) => [g.id, g.name, repo.groupPath(store, g), g.parentId || null]);
      case 'group_members': {
        const out: unknown[][] = [];
        for (const g of this.groups(realm)) {
          const path = repo.groupPath(store, g);
          for (const userId of repo.groupMemberIds(store, g.id)) out.push([g.id, path, userId, store.get<UserEntity>('users', userId)?.username ?? null]);
        }
        return out;
      }
      case 'roles':
        return this.roles(realm).map((r) => [r.id, r.name, r.clientId ? (store.get<ClientEntity>('clients', r.clientId)?.clientId ?? null) : null, r.composites.length > 0, r.description ?? null]);
      case 'user_roles': {
        const out: unknown[][] = [];
        for (const u of this.users(realm)) {
          const direct = new Set(repo.roleMappingIds(store, u.id));
          for (const roleId of repo.effectiveUserRoleIds(store, u.id)) {
            const role = store.get<RoleEntity>('roles', roleId);
            if (!role) continue;
            const client = role.clientId ? (store.get<ClientEntity>('clients', role.clientId)?.clientId ?? null) : null;
            out.push([u.id, u.username, role.id, role.name, client, direct.has(roleId)]);
          }
        }
        return out;
      }
      case 'clients':
        return repo.listClients(store, realm.id).map((c) => [c.id, c.clientId, c.name ?? null, c.enabled !== false, c.publicClient === true, c.protocol ?? 'openid-connect', c.serviceAccountsEnabled === true]);
      case 'sessions':
        return this.identity.sessions
          .list((s) => s.realmId === realm.id)
          .map((s) => [s.id, s.userId, s.username, s.ipAddress, s.start, s.lastAccess, s.clients.size, s.offline]);
      case 'events': {
        const notBefore = expiryFloor(realm.eventsExpiration);
        return store
          .range('userEvents', [realm.id])
          .map((e) => e.value as Record<string, unknown>)
          .filter((e) => (e.time as number) >= notBefore)
          .map((e) => [e.id ?? null, e.time, e.type ?? null, e.clientId ?? null, e.userId ?? null, e.sessionId ?? null, e.ipAddress ?? null, e.error ?? null]);
      }
      case 'admin_events': {
        const notBefore = expiryFloor(realm.adminEventsExpiration);
        const out: unknown[][] = [];
        for (const seq of store.adminEventSeqs(realm.id, false)) {
          const rec = store.logRecord(seq);
          if (!rec || rec.time < notBefore) continue;
          const a = rec.authDetails;
          out.push([rec.id, rec.time, rec.operationType, rec.resourceType, rec.resourcePath, a?.realmId ?? null, a?.userId ?? null, a?.clientId ?? null, a?.ipAddress ?? null]);
        }
        return out;
      }
    }
  }

  /** Users as the admin API lists them (service-account users left out). */
  private users(realm: RealmEntity): UserEntity[] {
    return this.byIndex<UserEntity>('userByUsername', 'users', realm).filter((u) => !u.serviceAccountClientId);
  }

  private groups(realm: RealmEntity): GroupEntity[] {
    return this.byIndex<GroupEntity>('groupByParentName', 'groups', realm);
  }

  private roles(realm: RealmEntity): RoleEntity[] {
    return this.byIndex<RoleEntity>('roleByName', 'roles', realm);
  }

  /** A realm's entities of a table, through the index that lists them by realm. */
  private byIndex<T>(index: string, table: TableName, realm: RealmEntity): T[] {
    const store = this.identity.store;
    const out: T[] = [];
    for (const e of store.range(index, [realm.id])) {
      const entity = store.get<T>(table, e.value as string);
      if (entity !== undefined) out.push(entity);
    }
    return out;
  }

  /** Whether the SQL realm's user `reader` may see the table of `target` through the admin API. */
  private mayRead(reader: string, target: RealmEntity, table: IdentityTableName): boolean {
    const store = this.identity.store;
    const sqlRealm = repo.realmByName(store, this.sqlRealm);
    const user = sqlRealm ? repo.userByUsername(store, sqlRealm.id, reader.toLowerCase()) : undefined;
    if (!sqlRealm || !user || !user.enabled) return false;
    const auth = new RealmAuth(store, { realm: sqlRealm, user, client: undefined, ipAddress: '' }, target);
    switch (table) {
      case 'users':
      case 'groups':
      case 'group_members':
      case 'user_roles':
      case 'sessions':
        return auth.users.canView();
      case 'roles':
        return auth.isAdmin();
      case 'clients':
        return auth.clients.canView();
      case 'events':
      case 'admin_events':
        return auth.events.canView();
    }
  }
}

function expiryFloor(expirationSeconds: unknown): number {
  const seconds = Number(expirationSeconds ?? 0);
  return seconds > 0 ? Date.now() - seconds * 1000 : 0;
}
