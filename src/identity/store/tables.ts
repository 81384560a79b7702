// Entity tables and the indexes derived from them. Indexes are pure functions of an entity, so the
// store keeps them in step on every put/delete and a replay of the log rebuilds them exactly.
import type { Key } from 'lmdb';

export type IndexKey = Key[];

export interface IndexDef {
  readonly name: string;
  /** The index keys an entity contributes; each maps to the entity's primary key. */
  keys(value: any, key: Key): IndexKey[];
}

export interface TableDef {
  readonly name: string;
  readonly indexes: readonly IndexDef[];
}

const attrKeys = (u: any): IndexKey[] => {
  const out: IndexKey[] = [];
  for (const [name, values] of Object.entries((u.attributes ?? {}) as Record<string, string[]>)) {
    for (const v of values ?? []) if (typeof v === 'string' && v.length < 400 && name.length < 200) out.push([u.realmId, name, v, u.id]);
  }
  return out;
};

export const TABLES = {
  realms: { name: 'realms', indexes: [{ name: 'realmByName', keys: (r) => [[r.realm]] }] },
  clients: { name: 'clients', indexes: [{ name: 'clientByClientId', keys: (c) => [[c.realmId, c.clientId]] }] },
  clientScopes: { name: 'clientScopes', indexes: [{ name: 'clientScopeByName', keys: (s) => [[s.realmId, s.name]] }] },
  roles: {
    name: 'roles',
    indexes: [
      { name: 'roleByName', keys: (r) => [[r.realmId, r.clientId, r.name]] },
      { name: 'roleCompositeParents', keys: (r) => (r.composites ?? []).map((c: string) => [c, r.id]) },
    ],
  },
  users: {
    name: 'users',
    indexes: [
      { name: 'userByUsername', keys: (u) => [[u.realmId, u.username]] },
      { name: 'userByEmail', keys: (u) => (u.email ? [[u.realmId, String(u.email).toLowerCase(), u.id]] : []) },
      { name: 'userByAttribute', keys: attrKeys },
      { name: 'userByServiceAccountClient', keys: (u) => (u.serviceAccountClientId ? [[u.serviceAccountClientId]] : []) },
    ],
  },
  groups: { name: 'groups', indexes: [{ name: 'groupByParentName', keys: (g) => [[g.realmId, g.parentId, g.name]] }] },
  /** key [userId, groupId] */
  userGroups: { name: 'userGroups', indexes: [{ name: 'groupMembers', keys: (_v, k) => [[(k as Key[])[1]!, (k as Key[])[0]!]] }] },
  /** key [holderId (user or group), roleId] */
  roleMappings: { name: 'roleMappings', indexes: [{ name: 'roleHolders', keys: (_v, k) => [[(k as Key[])[1]!, (k as Key[])[0]!]] }] },
  /** key [ownerId (client or client scope), roleId] */
  scopeMappings: { name: 'scopeMappings', indexes: [{ name: 'roleScopeOwners', keys: (_v, k) => [[(k as Key[])[1]!, (k as Key[])[0]!]] }] },
  organizations: { name: 'organizations', indexes: [{ name: 'orgByRealmName', keys: (o) => [[o.realmId, o.name]] }] },
  /** key [orgId, userId] → {membershipType} */
  orgMembers: { name: 'orgMembers', indexes: [{ name: 'memberOrgs', keys: (_v, k) => [[(k as Key[])[1]!, (k as Key[])[0]!]] }] },
  /** key: the client's internal id */
  resourceServers: { name: 'resourceServers', indexes: [] },
  components: { name: 'components', indexes: [{ name: 'componentByRealm', keys: (c) => [[c.realmId, c.id]] }] },
} satisfies Record<string, TableDef>;

export type TableName = keyof typeof TABLES;
export const TABLE_NAMES = Object.keys(TABLES) as TableName[];
