// Domain operations used by several resources and by realm import: create/delete users, clients,
// roles, groups and whole realms inside one open write (Tx), with Keycloak's conflict messages.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Tx } from './store/store.js';
import type {
  ClientEntity,
  ClientScopeEntity,
  GroupEntity,
  RealmEntity,
  RealmKeys,
  RoleEntity,
  StoredCredential,
  UserEntity,
} from './store/entities.js';
import * as repo from './store/repo.js';
import { ERR, errorMessage } from './errors.js';
import {
  BUILT_IN_CLIENTS,
  DEFAULT_SCOPES,
  MANAGEMENT_COMPOSITES,
  MANAGEMENT_ROLES,
  REALM_SETTING_DEFAULTS,
  baseClient,
  buildScope,
  builtInFlows,
  requiredActions,
} from './model/defaults.js';
import * as realmConv from './model/realm.js';
import * as clientConv from './model/client.js';
import * as userConv from './model/user.js';
import { cleanMultiMap, cleanStrMap } from './model/common.js';
import { mapperFromRepresentation } from './model/client-scope.js';
import { defaultComponents, listComponents } from './model/component.js';
import { defaultResourceServer } from './model/authz.js';
import { generateRealmKeysSync } from './oidc/keys.js';
import type {
  ClientRepresentation,
  ClientScopeRepresentation,
  GroupRepresentation,
  RealmRepresentation,
  RoleRepresentation,
  UserRepresentation,
} from './model/schemas.js';

export const MASTER = 'master';

export function generateSecret(): string {
  return randomBytes(24).toString('base64url').slice(0, 32);
}

// ── roles ─────────────────────────────────────────────────────────────────────────────────────────

export function newRole(tx: Tx, realmId: string, clientId: string, rep: RoleRepresentation, opts: { keepId?: boolean } = {}): RoleEntity {
  const name = rep.name?.trim();
  if (!name) throw errorMessage(400, 'Role name is missing');
  if (repo.roleByName(tx, realmId, clientId, name)) throw ERR.conflict(`Role with name ${name} already exists`);
  const role: RoleEntity = {
    id: opts.keepId && rep.id && !tx.get('roles', rep.id) ? rep.id : randomUUID(),
    realmId,
    clientId,
    name,
    composites: [],
    attributes: cleanMultiMap(rep.attributes),
  };
  if (rep.description != null) role.description = rep.description;
  tx.put('roles', role.id, role);
  return role;
}

export function addComposites(tx: Tx, role: RoleEntity, childIds: string[]): RoleEntity {
  const set = new Set(role.composites);
  for (const c of childIds) if (c !== role.id) set.add(c);
  const next = { ...role, composites: [...set] };
  tx.put('roles', role.id, next);
  return next;
}

export function deleteRole(tx: Tx, role: RoleEntity): void {
  for (const { key } of tx.range('roleHolders', [role.id])) tx.del('roleMappings', [(key as string[])[1]!, role.id]);
  for (const { key } of tx.range('roleScopeOwners', [role.id])) tx.del('scopeMappings', [(key as string[])[1]!, role.id]);
  for (const { key } of tx.range('roleCompositeParents', [role.id])) {
    const parent = tx.get<RoleEntity>('roles', (key as string[])[1]!);
    if (parent) tx.put('roles', parent.id, { ...parent, composites: parent.composites.filter((c) => c !== role.id) });
  }
  tx.del('roles', role.id);
}

// ── users ─────────────────────────────────────────────────────────────────────────────────────────

export function checkUserUnique(tx: Tx, realm: RealmEntity, u: { id?: string; username: string; email?: string | undefined }): void {
  const byName = repo.userByUsername(tx, realm.id, u.username);
  if (byName && byName.id !== u.id) throw ERR.conflict('User exists with same username');
  if (u.email && !realm.duplicateEmailsAllowed) {
    const others = repo.usersByEmail(tx, realm.id, u.email).filter((o) => o.id !== u.id);
    if (others.length) throw ERR.conflict('User exists with same email');
  }
}

export function newUser(tx: Tx, realm: RealmEntity, rep: UserRepresentation, credentials: StoredCredential[], opts: { keepId?: boolean; serviceAccountClientId?: string } = {}): UserEntity {
  const username = (rep.username ?? '').trim().toLowerCase();
  if (!username) throw errorMessage(400, 'error-user-attribute-required', { field: 'username', params: ['username'] });
  const base: UserEntity = {
    id: opts.keepId !== false && rep.id && !tx.get('users', rep.id) ? rep.id : randomUUID(),
    realmId: realm.id,
    username,
    emailVerified: false,
    enabled: false,
    createdTimestamp: typeof rep.createdTimestamp === 'number' && opts.keepId ? rep.createdTimestamp : Date.now(),
    attributes: {},
    requiredActions: [],
    credentials,
    federatedIdentities: (rep.federatedIdentities ?? []).map((f) => ({ identityProvider: f.identityProvider ?? '', userId: f.userId ?? '', userName: f.userName ?? '' })),
    notBefore: 0,
  };
  if (opts.serviceAccountClientId) base.serviceAccountClientId = opts.serviceAccountClientId;
  const user = userConv.applyRepresentation(base, { ...rep, username });
  checkUserUnique(tx, realm, user);
  tx.put('users', user.id, user);
  // Every new user gets the realm's default role.
  tx.put('roleMappings', [user.id, realm._defaultRoleId], 1);
  for (const name of rep.realmRoles ?? []) {
    const role = repo.roleByName(tx, realm.id, '', name);
    if (!role) throw errorMessage(400, `Could not find role: ${name}`);
    tx.put('roleMappings', [user.id, role.id], 1);
  }
  for (const [clientId, names] of Object.entries(rep.clientRoles ?? {})) {
    const client = repo.clientByClientId(tx, realm.id, clientId);
    if (!client) throw errorMessage(400, `Could not find client: ${clientId}`);
    for (const name of names) {
      const role = repo.roleByName(tx, realm.id, client.id, name);
      if (!role) throw errorMessage(400, `Could not find client role: ${name}`);
      tx.put('roleMappings', [user.id, role.id], 1);
    }
  }
  for (const path of rep.groups ?? []) {
    const g = repo.groupByPath(tx, realm.id, path);
    if (!g) throw errorMessage(400, `Group ${path} not found`);
    tx.put('userGroups', [user.id, g.id], 1);
  }
  return user;
}

export function deleteUser(tx: Tx, user: UserEntity): void {
  for (const rid of repo.roleMappingIds(tx, user.id)) tx.del('roleMappings', [user.id, rid]);
  for (const gid of repo.userGroupIds(tx, user.id)) tx.del('userGroups', [user.id, gid]);
  for (const oid of repo.pairs(tx, 'memberOrgs', user.id)) tx.del('orgMembers', [oid, user.id]);
  tx.del('users', user.id);
}

// ── clients ───────────────────────────────────────────────────────────────────────────────────────

function defaultScopeIds(tx: Tx, realm: RealmEntity, protocol: string, kind: 'default' | 'optional'): string[] {
  const ids = kind === 'default' ? realm._defaultDefaultClientScopes : realm._defaultOptionalClientScopes;
  return ids.filter((id) => tx.get<ClientScopeEntity>('clientScopes', id)?.protocol === protocol);
}

function scopeIdsByName(tx: Tx, realmId: string, names: string[]): string[] {
  const out: string[] = [];
  for (const n of names) {
    const s = repo.clientScopeByName(tx, realmId, n);
    if (s) out.push(s.id);
  }
  return out;
}

export function newClient(tx: Tx, realm: RealmEntity, rep: ClientRepresentation, opts: { keepId?: boolean; builtIn?: boolean } = {}): ClientEntity {
  const clientId = rep.clientId?.trim();
  if (!clientId) throw errorMessage(400, 'Client id is missing');
  if (repo.clientByClientId(tx, realm.id, clientId)) throw ERR.conflict(`Client ${clientId} already exists`);
  let client = baseClient(realm.id, clientId);
  if (opts.keepId !== false && rep.id && !tx.get('clients', rep.id)) client.id = rep.id;
  const protocolGiven = rep.protocol != null;
  if (protocolGiven && rep.publicClient == null && rep.bearerOnly == null && !opts.builtIn) client.publicClient = true;
  client = clientConv.applyRepresentation(client, rep);
  if (!client.publicClient && !client.bearerOnly && client.clientAuthenticatorType === 'client-secret') client.secret = rep.secret ?? generateSecret();
  client.protocolMappers = (rep.protocolMappers ?? []).map((m) => mapperFromRepresentation(m, client.protocol, opts.keepId));
  client.defaultClientScopeIds = rep.defaultClientScopes ? scopeIdsByName(tx, realm.id, rep.defaultClientScopes) : defaultScopeIds(tx, realm, client.protocol, 'default');
  client.optionalClientScopeIds = rep.optionalClientScopes ? scopeIdsByName(tx, realm.id, rep.optionalClientScopes) : defaultScopeIds(tx, realm, client.protocol, 'optional');
  if (!client.attributes['realm_client']) client.attributes['realm_client'] = 'false';
  if (client.authorizationServicesEnabled) {
    if (client.publicClient || client.bearerOnly) throw errorMessage(400, 'Authorization services require a confidential client');
    client.serviceAccountsEnabled = true;
  }
  tx.put('clients', client.id, client);
  if (client.serviceAccountsEnabled) ensureServiceAccount(tx, realm, client);
  syncResourceServer(tx, realm, client);
  return client;
}

/** Creates (with Keycloak's defaults) or removes a client's resource server to match its flag. */
export function syncResourceServer(tx: Tx, realm: RealmEntity, client: ClientEntity): void {
  const has = tx.get('resourceServers', client.id) !== undefined;
  if (client.authorizationServicesEnabled && !has) tx.put('resourceServers', client.id, defaultResourceServer(client, realm._defaultRoleId));
  else if (!client.authorizationServicesEnabled && has) tx.del('resourceServers', client.id);
}

export function ensureServiceAccount(tx: Tx, realm: RealmEntity, client: ClientEntity): void {
  if (tx.lookup('userByServiceAccountClient', [client.id])) return;
  newUser(tx, realm, { username: `service-account-${client.clientId}`, enabled: true }, [], { keepId: false, serviceAccountClientId: client.id });
}

export function deleteClient(tx: Tx, client: ClientEntity): void {
  for (const role of repo.listRoles(tx, client.realmId, client.id)) deleteRole(tx, role);
  for (const rid of repo.pairs(tx, 'scopeMappings', client.id)) tx.del('scopeMappings', [client.id, rid]);
  const sa = tx.lookup('userByServiceAccountClient', [client.id]);
  if (sa) {
    const u = tx.get<UserEntity>('users', sa);
    if (u) deleteUser(tx, u);
  }
  tx.del('resourceServers', client.id);
  tx.del('clients', client.id);
}

export function newClientScope(tx: Tx, realm: RealmEntity, rep: ClientScopeRepresentation, keepId = false): ClientScopeEntity {
  const name = rep.name?.trim();
  if (!name) throw errorMessage(400, 'Client Scope name is missing');
  if (repo.clientScopeByName(tx, realm.id, name)) throw ERR.conflict(`Client Scope ${name} already exists`);
  const scope: ClientScopeEntity = {
    id: keepId && rep.id && !tx.get('clientScopes', rep.id) ? rep.id : randomUUID(),
    realmId: realm.id,
    name,
    protocol: rep.protocol ?? 'openid-connect',
    attributes: cleanStrMap(rep.attributes),
    protocolMappers: [],
  };
  if (rep.description != null) scope.description = rep.description;
  scope.protocolMappers = (rep.protocolMappers ?? []).map((m) => mapperFromRepresentation(m, scope.protocol, keepId));
  tx.put('clientScopes', scope.id, scope);
  return scope;
}

export function deleteClientScope(tx: Tx, realm: RealmEntity, scope: ClientScopeEntity): void {
  for (const c of repo.listClients(tx, realm.id)) {
    if (c.defaultClientScopeIds.includes(scope.id) || c.optionalClientScopeIds.includes(scope.id)) {
      tx.put('clients', c.id, { ...c, defaultClientScopeIds: c.defaultClientScopeIds.filter((i) => i !== scope.id), optionalClientScopeIds: c.optionalClientScopeIds.filter((i) => i !== scope.id) });
    }
  }
  const r = tx.get<RealmEntity>('realms', realm.id)!;
  if (r._defaultDefaultClientScopes.includes(scope.id) || r._defaultOptionalClientScopes.includes(scope.id)) {
    tx.put('realms', r.id, { ...r, _defaultDefaultClientScopes: r._defaultDefaultClientScopes.filter((i) => i !== scope.id), _defaultOptionalClientScopes: r._defaultOptionalClientScopes.filter((i) => i !== scope.id) });
  }
  for (const rid of repo.pairs(tx, 'scopeMappings', scope.id)) tx.del('scopeMappings', [scope.id, rid]);
  tx.del('clientScopes', scope.id);
}

// ── groups ────────────────────────────────────────────────────────────────────────────────────────

export function newGroup(tx: Tx, realm: RealmEntity, parentId: string, rep: GroupRepresentation, keepId = false): GroupEntity {
  const name = rep.name?.trim();
  if (!name) throw errorMessage(400, 'Group name is missing');
  if (repo.childByName(tx, realm.id, parentId, name)) {
    throw ERR.conflict(parentId ? `Sibling group named '${name}' already exists.` : `Top level group named '${name}' already exists.`);
  }
  const g: GroupEntity = { id: keepId && rep.id && !tx.get('groups', rep.id) ? rep.id : randomUUID(), realmId: realm.id, parentId, name, attributes: cleanMultiMap(rep.attributes) };
  if (rep.description != null) g.description = rep.description;
  tx.put('groups', g.id, g);
  return g;
}

/** Imports a group tree with its role mappings (realm import, partial import). */
export function importGroup(tx: Tx, realm: RealmEntity, parentId: string, rep: GroupRepresentation): GroupEntity {
  const g = newGroup(tx, realm, parentId, rep, true);
  for (const name of rep.realmRoles ?? []) {
    const role = repo.roleByName(tx, realm.id, '', name);
    if (role) tx.put('roleMappings', [g.id, role.id], 1);
  }
  for (const [clientId, names] of Object.entries(rep.clientRoles ?? {})) {
    const client = repo.clientByClientId(tx, realm.id, clientId);
    for (const name of names) {
      const role = client && repo.roleByName(tx, realm.id, client.id, name);
      if (role) tx.put('roleMappings', [g.id, role.id], 1);
    }
  }
  for (const sub of rep.subGroups ?? []) importGroup(tx, realm, g.id, sub);
  return g;
}

export function deleteGroup(tx: Tx, g: GroupEntity): void {
  for (const child of repo.groupChildren(tx, g.realmId, g.id)) deleteGroup(tx, child);
  for (const uid of repo.groupMemberIds(tx, g.id)) tx.del('userGroups', [uid, g.id]);
  for (const rid of repo.roleMappingIds(tx, g.id)) tx.del('roleMappings', [g.id, rid]);
  const realm = tx.get<RealmEntity>('realms', g.realmId);
  if (realm && realm._defaultGroups.includes(g.id)) tx.put('realms', realm.id, { ...realm, _defaultGroups: realm._defaultGroups.filter((i) => i !== g.id) });
  tx.del('groups', g.id);
}

// ── realms ────────────────────────────────────────────────────────────────────────────────────────

export interface CreateRealmArgs {
  rep: RealmRepresentation;
  keys: RealmKeys;
  /** The rsa-enc-generated key pair (generated synchronously when absent). */
  encKeys?: RealmKeys;
  /** Pre-hashed credentials for rep.users, by index. */
  userCredentials?: StoredCredential[][];
  /** The creating user (master realm), who gets the new realm's admin roles unless they hold `admin`. */
  creator?: { userId: string; isAdmin: boolean };
}

function managementRoles(tx: Tx, realmId: string, clientId: string, withRealmAdmin: boolean): RoleEntity[] {
  const made = new Map<string, RoleEntity>();
  for (const name of [...MANAGEMENT_ROLES, 'impersonation']) made.set(name, newRole(tx, realmId, clientId, { name, description: `\${role_${name}}` }));
  for (const [parent, kids] of Object.entries(MANAGEMENT_COMPOSITES)) {
    made.set(parent, addComposites(tx, made.get(parent)!, kids.map((k) => made.get(k)!.id)));
  }
  const roles = [...made.values()];
  if (withRealmAdmin) {
    const ra = newRole(tx, realmId, clientId, { name: 'realm-admin', description: '${role_realm-admin}' });
    roles.push(addComposites(tx, ra, roles.map((r) => r.id)));
  }
  return roles;
}

export function createRealm(tx: Tx, args: CreateRealmArgs): RealmEntity {
  const rep = args.rep;
  const name = rep.realm?.trim();
  if (!name) throw errorMessage(400, 'Realm name cannot be empty');
  if (repo.realmByName(tx, name)) throw ERR.conflict('Conflict detected. See logs for details');
  const isMaster = name === MASTER;
  const master = isMaster ? undefined : repo.realmByName(tx, MASTER);
  const id = rep.id && !tx.get('realms', rep.id) ? rep.id : randomUUID();
  let realm: RealmEntity = {
    ...REALM_SETTING_DEFAULTS,
    id,
    realm: name,
    adminEventsEnabled: false,
    adminEventsDetailsEnabled: false,
    _keys: args.keys,
    _defaultRoleId: '',
    _defaultDefaultClientScopes: [],
    _defaultOptionalClientScopes: [],
    _defaultGroups: [],
    _requiredActions: requiredActions(),
    _flows: builtInFlows(isMaster),
    _createdAt: Date.now(),
  };
  realm = realmConv.applyRepresentation(realm, rep);
  realm.realm = name;
  tx.realmId = id;

  // Client scopes: the representation's own, or Keycloak's defaults.
  const scopeReps = rep.clientScopes ?? rep.clientTemplates;
  if (scopeReps) {
    for (const s of scopeReps) newClientScope(tx, realm, s, true);
    realm._defaultDefaultClientScopes = scopeIdsByName(tx, id, rep.defaultDefaultClientScopes ?? []);
    realm._defaultOptionalClientScopes = scopeIdsByName(tx, id, rep.defaultOptionalClientScopes ?? []);
  } else {
    for (const d of DEFAULT_SCOPES) {
      const s = buildScope(id, d);
      tx.put('clientScopes', s.id, s);
      (d.kind === 'default' ? realm._defaultDefaultClientScopes : realm._defaultOptionalClientScopes).push(s.id);
    }
  }

  // Realm roles.
  const lower = name.toLowerCase();
  const defaultRole = newRole(tx, id, '', { name: `default-roles-${lower}`, description: '${role_default-roles}' });
  const offline = newRole(tx, id, '', { name: 'offline_access', description: '${role_offline-access}' });
  const uma = newRole(tx, id, '', { name: 'uma_authorization', description: '${role_uma_authorization}' });
  realm._defaultRoleId = defaultRole.id;
  tx.put('realms', id, realm);
  for (const c of defaultComponents(realm, args.keys, args.encKeys ?? generateRealmKeysSync(name))) tx.put('components', c.id, c);

  // Built-in clients.
  const builtIns = new Map<string, ClientEntity>();
  for (const def of BUILT_IN_CLIENTS) {
    const c = newClient(tx, realm, { clientId: def.clientId, ...stripClientPatch(def.patch(name)) } as ClientRepresentation, { keepId: false, builtIn: true });
    const patched: ClientEntity = { ...c, ...def.patch(name), protocolMappers: def.patch(name).protocolMappers ?? [] };
    if (patched.publicClient || patched.bearerOnly) delete patched.secret;
    tx.put('clients', c.id, patched);
    builtIns.set(def.clientId, patched);
    const roles = new Map<string, RoleEntity>();
    for (const rn of def.roles ?? []) roles.set(rn, newRole(tx, id, c.id, { name: rn, description: `\${role_${rn}}` }));
    for (const [p, kids] of Object.entries(def.composites ?? {})) addComposites(tx, roles.get(p)!, kids.map((k) => roles.get(k)!.id));
  }
  const account = builtIns.get('account')!;
  const accRole = (n: string) => repo.roleByName(tx, id, account.id, n)!;
  addComposites(tx, defaultRole, [offline.id, uma.id, accRole('view-profile').id, accRole('manage-account').id]);
  const accountConsole = builtIns.get('account-console')!;
  tx.put('scopeMappings', [accountConsole.id, accRole('manage-account').id], 1);
  tx.put('scopeMappings', [accountConsole.id, accRole('view-groups').id], 1);
  const offlineScope = repo.clientScopeByName(tx, id, 'offline_access');
  if (offlineScope) tx.put('scopeMappings', [offlineScope.id, offline.id], 1);

  // Management clients and admin roles.
  if (isMaster) {
    const admin = newRole(tx, id, '', { name: 'admin', description: '${role_admin}' });
    const createRealmRole = newRole(tx, id, '', { name: 'create-realm', description: '${role_create-realm}' });
    const mc = newClient(tx, realm, { clientId: 'master-realm', name: 'master Realm', bearerOnly: true, attributes: { realm_client: 'true' } }, { keepId: false, builtIn: true });
    const roles = managementRoles(tx, id, mc.id, false);
    addComposites(tx, admin, [createRealmRole.id, ...roles.map((r) => r.id)]);
  } else {
    const rm = newClient(tx, realm, { clientId: 'realm-management', name: '${client_realm-management}', bearerOnly: true, fullScopeAllowed: false, attributes: { realm_client: 'true' } }, { keepId: false, builtIn: true });
    managementRoles(tx, id, rm.id, true);
    if (master) {
      const mc = newClient(tx, master, { clientId: `${name}-realm`, name: `${name} Realm`, bearerOnly: true, attributes: { realm_client: 'true' } }, { keepId: false, builtIn: true });
      const roles = managementRoles(tx, master.id, mc.id, false);
      const admin = repo.roleByName(tx, master.id, '', 'admin');
      if (admin) addComposites(tx, admin, roles.map((r) => r.id));
      if (args.creator && !args.creator.isAdmin) for (const r of roles) tx.put('roleMappings', [args.creator.userId, r.id], 1);
    }
  }

  importRealmContents(tx, tx.get<RealmEntity>('realms', id)!, rep, args.userCredentials ?? []);
  return tx.get<RealmEntity>('realms', id)!;
}

function stripClientPatch(p: Partial<ClientEntity>): Record<string, unknown> {
  const { protocolMappers: _m, ...rest } = p;
  void _m;
  return rest;
}

/** Nested import of a realm representation: roles, clients, groups, users, default groups. */
export function importRealmContents(tx: Tx, realm: RealmEntity, rep: RealmRepresentation, userCredentials: StoredCredential[][]): void {
  const realmId = realm.id;
  // Clients first (client roles need them).
  for (const c of rep.clients ?? []) {
    const existing = c.clientId ? repo.clientByClientId(tx, realmId, c.clientId) : undefined;
    if (existing) tx.put('clients', existing.id, clientConv.applyRepresentation(existing, c));
    else newClient(tx, tx.get<RealmEntity>('realms', realmId)!, c, { keepId: true });
  }
  const roleReps: Array<[string, RoleRepresentation]> = [];
  for (const r of rep.roles?.realm ?? []) roleReps.push(['', r]);
  for (const [clientId, list] of Object.entries({ ...(rep.roles?.application ?? {}), ...(rep.roles?.client ?? {}) })) {
    const client = repo.clientByClientId(tx, realmId, clientId);
    if (!client) throw errorMessage(400, `Client ${clientId} not found for its roles`);
    for (const r of list) roleReps.push([client.id, r]);
  }
  for (const [cid, r] of roleReps) {
    if (!r.name) continue;
    const existing = repo.roleByName(tx, realmId, cid, r.name);
    if (!existing) newRole(tx, realmId, cid, r, { keepId: true });
    else if (r.description != null) tx.put('roles', existing.id, { ...existing, description: r.description });
  }
  for (const [cid, r] of roleReps) {
    if (!r.composites || !r.name) continue;
    const role = repo.roleByName(tx, realmId, cid, r.name)!;
    const kids: string[] = [];
    for (const n of r.composites.realm ?? []) {
      const k = repo.roleByName(tx, realmId, '', n);
      if (k) kids.push(k.id);
    }
    for (const [clientId, names] of Object.entries({ ...(r.composites.application ?? {}), ...(r.composites.client ?? {}) })) {
      const c = repo.clientByClientId(tx, realmId, clientId);
      for (const n of names) {
        const k = c && repo.roleByName(tx, realmId, c.id, n);
        if (k) kids.push(k.id);
      }
    }
    addComposites(tx, role, kids);
  }
  for (const g of rep.groups ?? []) importGroup(tx, realm, '', g);
  (rep.users ?? []).forEach((u, i) => newUser(tx, tx.get<RealmEntity>('realms', realmId)!, u, userCredentials[i] ?? [], { keepId: true }));
  if (rep.defaultGroups?.length) {
    const r = tx.get<RealmEntity>('realms', realmId)!;
    const ids = rep.defaultGroups.map((p) => repo.groupByPath(tx, realmId, p)?.id).filter((x): x is string => !!x);
    tx.put('realms', realmId, { ...r, _defaultGroups: [...new Set([...r._defaultGroups, ...ids])] });
  }
}

export function deleteRealm(tx: Tx, realm: RealmEntity): void {
  for (const u of tx.range('userByUsername', [realm.id])) {
    const user = tx.get<UserEntity>('users', u.value as string);
    if (user) deleteUser(tx, user);
  }
  for (const g of repo.groupChildren(tx, realm.id, '')) deleteGroup(tx, g);
  for (const c of repo.listClients(tx, realm.id)) deleteClient(tx, c);
  for (const r of repo.listRoles(tx, realm.id, '')) deleteRole(tx, r);
  for (const s of repo.listClientScopes(tx, realm.id)) {
    for (const rid of repo.pairs(tx, 'scopeMappings', s.id)) tx.del('scopeMappings', [s.id, rid]);
    tx.del('clientScopes', s.id);
  }
  const master = repo.realmByName(tx, MASTER);
  if (master && master.id !== realm.id) {
    const mc = repo.clientByClientId(tx, master.id, `${realm.realm}-realm`);
    if (mc) deleteClient(tx, mc);
  }
  for (const c of listComponents(tx, realm.id)) tx.del('components', c.id);
  for (const e of tx.range('orgByRealmName', [realm.id])) tx.del('organizations', e.value as string);
  tx.apply(['!clearAdminEvents', realm.id]);
  tx.del('realms', realm.id);
}
