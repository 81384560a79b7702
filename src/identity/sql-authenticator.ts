// Who runs SQL: the coordinator's `/v1` resources authenticate through here, against the identity
// service's own users and tokens. HTTP Basic checks a password of a user of the SQL realm with the
// realm's brute-force rules, as the token endpoint does; a statement is a POST and many GETs, so a
// verified Basic header is remembered for a short time under a keyed hash of it (never the password
// itself), as Trino's password authenticator caches. Bearer takes an access token the SQL realm
// issued (RS256, verified in process). Roles and groups are read live on every request, so a role
// granted through the admin API applies to the next statement.

import { createHmac, randomBytes } from 'node:crypto';
import type { GroupEntity, RealmEntity, RoleEntity, UserEntity } from './store/entities.js';
import * as repo from './store/repo.js';
import type { IdentityService } from './service.js';

/** The authenticated caller as the SQL side sees it. */
export interface SqlIdentity {
  readonly user: string;
  readonly realm: string;
  /** Effective realm roles (composites and group roles expanded). */
  readonly roles: readonly string[];
  /** Group paths (`/a/b`) the user belongs to, with their ancestors. */
  readonly groups: readonly string[];
}

/** Why credentials were refused; never shown to the client (it gets a bare 401), only logged. */
export type SqlAuthFailure = 'missing' | 'unsupported-scheme' | 'malformed' | 'unknown-user' | 'bad-password' | 'locked' | 'disabled' | 'bad-token' | 'other-realm';

export type SqlAuthOutcome = { readonly ok: true; readonly identity: SqlIdentity } | { readonly ok: false; readonly failure: SqlAuthFailure; readonly user?: string };

/** How long a verified Basic header stands without its password being checked again. */
const BASIC_CACHE_TTL_MS = 10_000;
const BASIC_CACHE_LIMIT = 10_000;

export class SqlAuthenticator {
  /** A per-process key: cache keys are HMACs of the header, useless outside this process. */
  private readonly cacheKey = randomBytes(32);
  private readonly verified = new Map<string, { readonly userId: string; readonly until: number; version: number; identity: SqlIdentity | undefined }>();
  /** The cache key of a headers object's Authorization value: a connection's requests share one object. */
  private readonly keyOfHeaders = new WeakMap<object, { readonly value: string; readonly key: string }>();
  /** Identities by user id, as of the store version they were read at (any write makes them stale). */
  private readonly identities = new Map<string, { readonly version: number; readonly identity: SqlIdentity }>();
  private realmRead: { readonly version: number; readonly realm: RealmEntity | undefined } | undefined;

  constructor(
    private readonly identity: IdentityService,
    readonly realmName: string,
  ) {}

  /** The realm SQL users belong to, or undefined when it is missing or disabled. */
  private realm(): RealmEntity | undefined {
    const version = this.identity.store.version;
    if (this.realmRead?.version !== version) {
      const realm = this.identity.realm(this.realmName);
      this.realmRead = { version, realm: realm && realm.enabled !== false ? realm : undefined };
    }
    return this.realmRead.realm;
  }

  /**
   * Checks an Authorization header; synchronous when a cached Basic header or nothing is to verify.
   * `headers`, the request's headers object, lets a connection's requests reuse the header's cache key.
   */
  authenticate(authorization: string | undefined, remoteAddress: string, headers?: object): SqlAuthOutcome | Promise<SqlAuthOutcome> {
    if (authorization === undefined || authorization === '') return { ok: false, failure: 'missing' };
    const space = authorization.indexOf(' ');
    const scheme = space < 0 ? authorization : authorization.slice(0, space);
    const value = space < 0 ? '' : authorization.slice(space + 1).trim();
    switch (scheme.toLowerCase()) {
      case 'basic':
        return this.basic(value, remoteAddress, headers);
      case 'bearer':
        return this.bearer(value);
      default:
        return { ok: false, failure: 'unsupported-scheme' };
    }
  }

  private basic(value: string, remoteAddress: string, headers: object | undefined): SqlAuthOutcome | Promise<SqlAuthOutcome> {
    const realm = this.realm();
    if (!realm) return { ok: false, failure: 'other-realm' };
    const known = headers === undefined ? undefined : this.keyOfHeaders.get(headers);
    const key = known?.value === value ? known.key : createHmac('sha256', this.cacheKey).update(value).digest('base64');
    if (headers !== undefined && known?.key !== key) this.keyOfHeaders.set(headers, { value, key });
    const hit = this.verified.get(key);
    const now = Date.now();
    if (hit !== undefined && hit.until > now) {
      // Unchanged store: the user is as enabled, and its roles as they were, when last read.
      const version = this.identity.store.version;
      if (hit.version === version && hit.identity !== undefined && !this.identity.bruteForce.isTemporarilyDisabled(realm, hit.userId, now)) return { ok: true, identity: hit.identity };
      const user = repo.userInRealm(this.identity.store, realm.id, hit.userId);
      if (user?.enabled && !this.identity.bruteForce.isTemporarilyDisabled(realm, user.id, now)) {
        hit.version = version;
        hit.identity = this.identityOf(realm, user);
        return { ok: true, identity: hit.identity };
      }
      this.verified.delete(key);
    }
    const text = Buffer.from(value, 'base64').toString('utf8');
    const colon = text.indexOf(':');
    if (colon <= 0) return { ok: false, failure: 'malformed' };
    return this.checkPassword(realm, text.slice(0, colon), text.slice(colon + 1), remoteAddress, key);
  }

  private async checkPassword(realm: RealmEntity, login: string, password: string, remoteAddress: string, key: string): Promise<SqlAuthOutcome> {
    const user = this.identity.findLoginUser(realm, login);
    const event = (error: string | undefined, u: UserEntity | undefined): void =>
      this.identity.userEvent(realm, { type: error ? 'LOGIN_ERROR' : 'LOGIN', clientId: 'sql', userId: u?.id, ipAddress: remoteAddress, ...(error ? { error } : {}), details: { auth_method: 'basic', username: login } });
    if (!user) {
      event('user_not_found', undefined);
      return { ok: false, failure: 'unknown-user', user: login };
    }
    if (this.identity.bruteForce.isTemporarilyDisabled(realm, user.id)) {
      // Counted like any failure, and refused like one: the answer does not reveal the lockout.
      await this.identity.loginFailed(realm, user, remoteAddress);
      event('user_temporarily_disabled', user);
      return { ok: false, failure: 'locked', user: login };
    }
    if (!(await this.identity.checkPassword(user, password))) {
      if (user.enabled) await this.identity.loginFailed(realm, user, remoteAddress);
      event('invalid_user_credentials', user);
      return { ok: false, failure: 'bad-password', user: login };
    }
    if (!user.enabled) {
      event('user_disabled', user);
      return { ok: false, failure: 'disabled', user: login };
    }
    this.identity.bruteForce.success(realm, user.id);
    if (this.verified.size >= BASIC_CACHE_LIMIT) this.verified.clear();
    const identity = this.identityOf(realm, user);
    this.verified.set(key, { userId: user.id, until: Date.now() + BASIC_CACHE_TTL_MS, version: this.identity.store.version, identity });
    event(undefined, user);
    return { ok: true, identity };
  }

  private async bearer(token: string): Promise<SqlAuthOutcome> {
    const verified = await this.identity.verifyAccessToken(token);
    if (!verified) return { ok: false, failure: 'bad-token' };
    if (verified.realm.realm !== this.realmName || verified.realm.enabled === false) return { ok: false, failure: 'other-realm', user: verified.user.username };
    if (this.identity.bruteForce.isTemporarilyDisabled(verified.realm, verified.user.id)) return { ok: false, failure: 'locked', user: verified.user.username };
    return { ok: true, identity: this.identityOf(verified.realm, verified.user) };
  }

  /** Another user's roles and groups (whom an admin impersonates), or undefined when there is no such user. */
  lookup(username: string): SqlIdentity | undefined {
    const version = this.identity.store.version;
    const hit = this.looked.get(username);
    if (hit?.version === version) return hit.identity;
    const realm = this.realm();
    const user = realm ? repo.userByUsername(this.identity.store, realm.id, username.toLowerCase()) : undefined;
    const identity = realm && user ? this.identityOf(realm, user) : undefined;
    if (this.looked.size >= BASIC_CACHE_LIMIT) this.looked.clear();
    this.looked.set(username, { version, identity });
    return identity;
  }

  /** lookup's answers by user name, as of a store version. */
  private readonly looked = new Map<string, { readonly version: number; readonly identity: SqlIdentity | undefined }>();

  /** The user's realm roles and groups as they are now (re-read after any write to the store). */
  private identityOf(realm: RealmEntity, user: UserEntity): SqlIdentity {
    const store = this.identity.store;
    const version = store.version;
    const hit = this.identities.get(user.id);
    if (hit?.version === version) return hit.identity;
    if (this.identities.size >= BASIC_CACHE_LIMIT) this.identities.clear();
    const identity = this.readIdentity(realm, user);
    this.identities.set(user.id, { version, identity });
    return identity;
  }

  private readIdentity(realm: RealmEntity, user: UserEntity): SqlIdentity {
    const store = this.identity.store;
    const roles: string[] = [];
    for (const id of repo.effectiveUserRoleIds(store, user.id)) {
      const role = store.get<RoleEntity>('roles', id);
      if (role && role.clientId === '') roles.push(role.name);
    }
    const groups: string[] = [];
    for (const id of repo.userGroupsWithAncestors(store, user.id)) {
      const group = store.get<GroupEntity>('groups', id);
      if (group) groups.push(repo.groupPath(store, group));
    }
    return { user: user.username, realm: realm.realm, roles, groups };
  }
}
