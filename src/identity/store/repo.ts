// Read helpers over the store or an open write (both see writes still in flight): lookups by the
// indexes, listings in index order, group paths, and effective roles with composites expanded.
import type { Key } from 'lmdb';
import type { ClientEntity, ClientScopeEntity, GroupEntity, RealmEntity, RoleEntity, UserEntity } from './entities.js';
import type { TableName } from './tables.js';

export interface Reader {
  get<T>(table: TableName, key: Key): T | undefined;
  lookup(index: string, key: Key): string | undefined;
  range(db: string, prefix: Key[], opts?: { reverse?: boolean }): Array<{ key: Key; value: unknown }>;
}

export const realmByName = (r: Reader, name: string): RealmEntity | undefined => {
  const id = r.lookup('realmByName', [name]);
  return id ? r.get<RealmEntity>('realms', id) : undefined;
};

export const listRealms = (r: Reader): RealmEntity[] =>
  r.range('realms', []).map((e) => e.value as RealmEntity);

export const clientByClientId = (r: Reader, realmId: string, clientId: string): ClientEntity | undefined => {
  const id = r.lookup('clientByClientId', [realmId, clientId]);
  return id ? r.get<ClientEntity>('clients', id) : undefined;
};

export const clientInRealm = (r: Reader, realmId: string, id: string): ClientEntity | undefined => {
  const c = r.get<ClientEntity>('clients', id);
  return c && c.realmId === realmId ? c : undefined;
};

export const listClients = (r: Reader, realmId: string): ClientEntity[] =>
  r.range('clientByClientId', [realmId]).map((e) => r.get<ClientEntity>('clients', e.value as string)!).filter(Boolean);

export const clientScopeByName = (r: Reader, realmId: string, name: string): ClientScopeEntity | undefined => {
  const id = r.lookup('clientScopeByName', [realmId, name]);
  return id ? r.get<ClientScopeEntity>('clientScopes', id) : undefined;
};

export const listClientScopes = (r: Reader, realmId: string): ClientScopeEntity[] =>
  r.range('clientScopeByName', [realmId]).map((e) => r.get<ClientScopeEntity>('clientScopes', e.value as string)!).filter(Boolean);

export const roleByName = (r: Reader, realmId: string, clientId: string, name: string): RoleEntity | undefined => {
  const id = r.lookup('roleByName', [realmId, clientId, name]);
  return id ? r.get<RoleEntity>('roles', id) : undefined;
};

export const listRoles = (r: Reader, realmId: string, clientId: string): RoleEntity[] =>
  r.range('roleByName', [realmId, clientId]).map((e) => r.get<RoleEntity>('roles', e.value as string)!).filter(Boolean);

export const userByUsername = (r: Reader, realmId: string, username: string): UserEntity | undefined => {
  const id = r.lookup('userByUsername', [realmId, username.toLowerCase()]);
  return id ? r.get<UserEntity>('users', id) : undefined;
};

export const usersByEmail = (r: Reader, realmId: string, email: string): UserEntity[] =>
  r.range('userByEmail', [realmId, email.toLowerCase()]).map((e) => r.get<UserEntity>('users', e.value as string)!).filter(Boolean);

export const userInRealm = (r: Reader, realmId: string, id: string): UserEntity | undefined => {
  const u = r.get<UserEntity>('users', id);
  return u && u.realmId === realmId ? u : undefined;
};

export const groupInRealm = (r: Reader, realmId: string, id: string): GroupEntity | undefined => {
  const g = r.get<GroupEntity>('groups', id);
  return g && g.realmId === realmId ? g : undefined;
};

export const groupChildren = (r: Reader, realmId: string, parentId: string): GroupEntity[] =>
  r.range('groupByParentName', [realmId, parentId]).map((e) => r.get<GroupEntity>('groups', e.value as string)!).filter(Boolean);

export const childByName = (r: Reader, realmId: string, parentId: string, name: string): GroupEntity | undefined => {
  const id = r.lookup('groupByParentName', [realmId, parentId, name]);
  return id ? r.get<GroupEntity>('groups', id) : undefined;
};

export function groupPath(r: Reader, g: GroupEntity): string {
  const parts = [g.name];
  let cur = g;
  for (let i = 0; cur.parentId && i < 1000; i++) {
    const p = r.get<GroupEntity>('groups', cur.parentId);
    if (!p) break;
    parts.unshift(p.name);
    cur = p;
  }
  return '/' + parts.join('/');
}

export function groupByPath(r: Reader, realmId: string, path: string): GroupEntity | undefined {
  const segs = path.split('/').filter((s) => s.length);
  let parent = '';
  let g: GroupEntity | undefined;
  for (const s of segs) {
    g = childByName(r, realmId, parent, s);
    if (!g) return undefined;
    parent = g.id;
  }
  return g;
}

export function descendants(r: Reader, g: GroupEntity): GroupEntity[] {
  const out: GroupEntity[] = [];
  const stack = [g];
  while (stack.length) {
    const cur = stack.pop()!;
    for (const c of groupChildren(r, g.realmId, cur.id)) {
      out.push(c);
      stack.push(c);
    }
  }
  return out;
}

/** Second elements of keys starting with [first]: e.g. the role ids mapped to a holder. */
export const pairs = (r: Reader, db: string, first: string): string[] => r.range(db, [first]).map((e) => (e.key as string[])[1]!);

export const roleMappingIds = (r: Reader, holderId: string): string[] => pairs(r, 'roleMappings', holderId);
export const userGroupIds = (r: Reader, userId: string): string[] => pairs(r, 'userGroups', userId);
export const groupMemberIds = (r: Reader, groupId: string): string[] => pairs(r, 'groupMembers', groupId);

/** Role ids with every composite expanded. */
export function expandRoles(r: Reader, ids: Iterable<string>): Set<string> {
  const out = new Set<string>();
  const stack = [...ids];
  while (stack.length) {
    const id = stack.pop()!;
    if (out.has(id)) continue;
    const role = r.get<RoleEntity>('roles', id);
    if (!role) continue;
    out.add(id);
    for (const c of role.composites) if (!out.has(c)) stack.push(c);
  }
  return out;
}

/** The groups a user belongs to, with their ancestors (roles of parent groups are inherited). */
export function userGroupsWithAncestors(r: Reader, userId: string): string[] {
  const out = new Set<string>();
  for (const gid of userGroupIds(r, userId)) {
    let cur = r.get<GroupEntity>('groups', gid);
    for (let i = 0; cur && !out.has(cur.id) && i < 1000; i++) {
      out.add(cur.id);
      cur = cur.parentId ? r.get<GroupEntity>('groups', cur.parentId) : undefined;
    }
  }
  return [...out];
}

export function effectiveUserRoleIds(r: Reader, userId: string): Set<string> {
  const direct = roleMappingIds(r, userId);
  for (const g of userGroupsWithAncestors(r, userId)) direct.push(...roleMappingIds(r, g));
  return expandRoles(r, direct);
}

export function effectiveGroupRoleIds(r: Reader, group: GroupEntity): Set<string> {
  const ids: string[] = [];
  let cur: GroupEntity | undefined = group;
  for (let i = 0; cur && i < 1000; i++) {
    ids.push(...roleMappingIds(r, cur.id));
    cur = cur.parentId ? r.get<GroupEntity>('groups', cur.parentId) : undefined;
  }
  return expandRoles(r, ids);
}
