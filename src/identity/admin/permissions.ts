// The permission evaluator (Keycloak AdminPermissionEvaluator): paired can…/require… methods per
// resource kind, decided by the caller's roles on the target realm's management client — the
// master `<realm>-realm` client for master tokens, `realm-management` for the realm's own tokens.
import { ERR } from '../errors.js';
import type { ClientEntity, RealmEntity, RoleEntity, UserEntity } from '../store/entities.js';
import * as repo from '../store/repo.js';
import type { IdentityStore } from '../store/store.js';
import { MASTER } from '../managers.js';

export interface Caller {
  realm: RealmEntity;
  user: UserEntity;
  client: ClientEntity | undefined;
  ipAddress: string;
}

export interface Pair {
  can(): boolean;
  require(): void;
}

export interface ResourcePermissions {
  canQuery(): boolean;
  canView(): boolean;
  canManage(): boolean;
  requireQuery(): void;
  requireView(): void;
  requireManage(): void;
}

const cache = new Map<string, { version: number; names: Set<string> }>();

/** Role names the caller holds (effectively) on a client. */
export function callerClientRoles(store: IdentityStore, user: UserEntity, clientId: string | undefined): Set<string> {
  if (clientId === undefined) return new Set();
  const k = `${user.id}|${clientId}`;
  const hit = cache.get(k);
  if (hit && hit.version === store.version) return hit.names;
  const names = new Set<string>();
  for (const id of repo.effectiveUserRoleIds(store, user.id)) {
    const r = store.get<RoleEntity>('roles', id);
    if (r && r.clientId === clientId) names.add(r.name);
  }
  if (cache.size > 10_000) cache.clear();
  cache.set(k, { version: store.version, names });
  return names;
}

export function callerRealmRoles(store: IdentityStore, user: UserEntity): Set<string> {
  return callerClientRoles(store, user, '');
}

function resource(has: (...names: string[]) => boolean, query: string[], view: string[], manage: string[]): ResourcePermissions {
  const p = {
    canQuery: () => has(...query, ...view, ...manage),
    canView: () => has(...view, ...manage),
    canManage: () => has(...manage),
    requireQuery: () => {
      if (!p.canQuery()) throw ERR.forbidden();
    },
    requireView: () => {
      if (!p.canView()) throw ERR.forbidden();
    },
    requireManage: () => {
      if (!p.canManage()) throw ERR.forbidden();
    },
  };
  return p;
}

export type RoleAccess = 'view' | 'manage';

export class RealmAuth {
  private namesCache: Set<string> | undefined;
  readonly realm: ResourcePermissions;
  readonly users: ResourcePermissions;
  readonly groups: ResourcePermissions;
  readonly clients: ResourcePermissions;
  readonly events: ResourcePermissions;
  readonly identityProviders: ResourcePermissions;
  readonly authorization: ResourcePermissions;

  constructor(
    private readonly store: IdentityStore,
    readonly caller: Caller,
    readonly target: RealmEntity,
  ) {
    const has = (...n: string[]) => this.has(...n);
    this.realm = resource(has, ['query-realms'], ['view-realm'], ['manage-realm']);
    this.users = resource(has, ['query-users'], ['view-users'], ['manage-users']);
    this.groups = resource(has, ['query-groups'], ['view-users'], ['manage-users']);
    this.clients = resource(has, ['query-clients'], ['view-clients'], ['manage-clients']);
    this.events = resource(has, [], ['view-events'], ['manage-events']);
    this.identityProviders = resource(has, [], ['view-identity-providers'], ['manage-identity-providers']);
    this.authorization = resource(has, [], ['view-authorization'], ['manage-authorization']);
  }

  /** The caller's role names on the target realm's management client (empty for a foreign realm). */
  names(): Set<string> {
    if (this.namesCache) return this.namesCache;
    const { caller, target, store } = this;
    let clientId: string | undefined;
    if (caller.realm.realm === MASTER) clientId = repo.clientByClientId(store, caller.realm.id, `${target.realm}-realm`)?.id;
    else if (caller.realm.id === target.id) clientId = repo.clientByClientId(store, target.id, 'realm-management')?.id;
    const names = new Set(callerClientRoles(store, caller.user, clientId));
    if (names.has('realm-admin')) for (const n of ['manage-realm', 'view-realm', 'manage-users', 'view-users', 'query-users', 'query-groups', 'manage-clients', 'view-clients', 'query-clients', 'query-realms', 'view-events', 'manage-events', 'view-identity-providers', 'manage-identity-providers', 'view-authorization', 'manage-authorization', 'create-client', 'impersonation']) names.add(n);
    return (this.namesCache = names);
  }

  has(...roles: string[]): boolean {
    const names = this.names();
    return roles.some((r) => names.has(r));
  }

  /** Holds any admin role for this realm. */
  isAdmin(): boolean {
    return this.names().size > 0;
  }

  requireAnyAdmin(): void {
    if (!this.isAdmin()) throw ERR.forbidden();
  }

  /** Realm roles: listed by any admin, viewed with view-realm/users/clients, managed with manage-realm. */
  readonly roles = {
    requireList: () => this.requireAnyAdmin(),
    canView: (clientId: string) => (clientId ? this.clients.canView() : this.isAdmin()),
    requireView: (clientId: string) => {
      if (!this.roles.canView(clientId)) throw ERR.forbidden();
    },
    canManage: (clientId: string) => (clientId ? this.clients.canManage() : this.realm.canManage()),
    requireManage: (clientId: string) => {
      if (!this.roles.canManage(clientId)) throw ERR.forbidden();
    },
    /** Checks the right `need` on roles of the container `clientId` ('' for realm roles). */
    require: (need: RoleAccess, clientId: string) => (need === 'view' ? this.roles.requireView(clientId) : this.roles.requireManage(clientId)),
    /** Whether some role of the realm, realm or client, could be seen (changed): an unknown role id is then a 404, not a 403. */
    canOnSome: (need: RoleAccess) => (need === 'view' ? this.roles.canView('') || this.clients.canView() : this.roles.canManage('') || this.clients.canManage()),
  };

  /** Client scopes follow client permissions. */
  readonly clientScopes = {
    requireView: () => {
      if (!this.has('view-clients', 'manage-clients', 'query-clients', 'view-realm', 'manage-realm')) throw ERR.forbidden();
    },
    requireManage: () => {
      if (!this.has('manage-clients')) throw ERR.forbidden();
    },
  };

  canCreateClient(): boolean {
    return this.has('manage-clients', 'create-client');
  }
}

/** Master `create-realm` (or `admin`, which contains it). */
export function canCreateRealm(store: IdentityStore, caller: Caller): boolean {
  if (caller.realm.realm !== MASTER) return false;
  return callerRealmRoles(store, caller.user).has('create-realm');
}
