// /admin/realms/{realm}/attack-detection/brute-force: a user's login-failure status, and clearing
// it for one user or all (AttackDetectionResource). Clearing frees temporarily locked users and
// re-enables users disabled by a permanent lockout; each clear writes one DELETE admin event.
import type { UserEntity } from '../store/entities.js';
import * as repo from '../store/repo.js';
import { DISABLED_REASON, PERMANENT_LOCKOUT } from '../oidc/brute-force.js';
import type { Tx } from '../store/store.js';
import { noContent, ok, type AdminContext, type AdminRoutes } from './context.js';
import { userOfPath } from './locate.js';

const lockedOut = (u: UserEntity) => u.attributes[DISABLED_REASON]?.[0] === PERMANENT_LOCKOUT;

function unlock(tx: Tx, u: UserEntity): void {
  if (!lockedOut(u)) return;
  const { [DISABLED_REASON]: _r, ...attributes } = u.attributes;
  void _r;
  tx.put('users', u.id, { ...u, enabled: true, attributes });
}

export function register(r: AdminRoutes): void {
  const svc = r.svc;
  const store = svc.store;
  const B = '/attack-detection/brute-force/users';
  const locate = (ctx: AdminContext): UserEntity => userOfPath(store, ctx);

  r.realm('GET', `${B}/:userId`, (ctx) => {
    ctx.auth.users.requireView();
    const u = locate(ctx);
    const data: Record<string, unknown> = { numFailures: 0, disabled: false, lastIPFailure: 'n/a', lastFailure: 0 };
    if (!ctx.realm.bruteForceProtected) return ok(data);
    const f = svc.bruteForce.get(ctx.realm.id, u.id);
    if (!f && !lockedOut(u)) return ok(data);
    return ok({
      numFailures: f?.numFailures ?? 0,
      disabled: svc.bruteForce.isTemporarilyDisabled(ctx.realm, u.id) || lockedOut(u),
      lastIPFailure: f?.lastIPFailure ?? 'n/a',
      lastFailure: f?.lastFailure ?? 0,
      numTemporaryLockouts: f?.numTemporaryLockouts ?? 0,
      failedLoginNotBefore: f ? Math.floor(f.failedLoginNotBefore / 1000) : 0,
    });
  });

  r.realm('DELETE', `${B}/:userId`, async (ctx) => {
    ctx.auth.users.requireManage();
    const u = locate(ctx);
    svc.bruteForce.clear(ctx.realm.id, u.id);
    await ctx.write((tx, ev) => {
      const cur = tx.get<UserEntity>('users', u.id);
      if (cur) unlock(tx, cur);
      ev.delete('USER_LOGIN_FAILURE', ctx.here());
    });
    return noContent();
  });

  r.realm('DELETE', B, async (ctx) => {
    ctx.auth.users.requireManage();
    svc.bruteForce.clearRealm(ctx.realm.id);
    await ctx.write((tx, ev) => {
      for (const e of tx.range('userByUsername', [ctx.realm.id])) {
        const u = tx.get<UserEntity>('users', e.value as string);
        if (u) unlock(tx, u);
      }
      ev.delete('USER_LOGIN_FAILURE', ctx.here());
    });
    return noContent();
  });
}
