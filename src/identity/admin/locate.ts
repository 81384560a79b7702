// The entity a path parameter names, as Keycloak resolves it: 404 when it does not exist, but 403
// first when the caller may not even query that kind of entity (so ids cannot be probed).

import { ERR } from '../errors.js';
import type { ClientEntity, GroupEntity, UserEntity } from '../store/entities.js';
import * as repo from '../store/repo.js';
import type { IdentityStore } from '../store/store.js';
import type { AdminContext } from './context.js';

export function clientOfPath(store: IdentityStore, ctx: AdminContext): ClientEntity {
  const c = repo.clientInRealm(store, ctx.realm.id, ctx.param('clientUuid'));
  if (c) return c;
  if (!ctx.auth.clients.canQuery()) throw ERR.forbidden();
  throw ERR.clientNotFound();
}

export function userOfPath(store: IdentityStore, ctx: AdminContext): UserEntity {
  const u = repo.userInRealm(store, ctx.realm.id, ctx.param('userId'));
  if (u) return u;
  if (!ctx.auth.users.canQuery()) throw ERR.forbidden();
  throw ERR.userNotFound();
}

export function groupOfPath(store: IdentityStore, ctx: AdminContext): GroupEntity {
  const g = repo.groupInRealm(store, ctx.realm.id, ctx.param('groupId'));
  if (g) return g;
  if (!ctx.auth.groups.canQuery()) throw ERR.forbidden();
  throw ERR.groupNotFound();
}
