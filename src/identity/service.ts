// The identity service: the store, realm keys, sessions, token verification, and the bootstrap of
// the master realm. Resources (admin/, oidc/) get one of these.
import { randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, jwtVerify, type CryptoKey, type JWSHeaderParameters, type JWTPayload } from 'jose';
import { keyRing, type KeyRing } from './model/component.js';
import { IdentityStore } from './store/store.js';
import type { RealmEntity, RoleEntity, StoredCredential, UserEntity, ClientEntity } from './store/entities.js';
import * as repo from './store/repo.js';
import { createRealm, MASTER } from './managers.js';
import { generateRealmKeys, verificationKey } from './oidc/keys.js';
import { SessionStore, type UserSession } from './oidc/sessions.js';
import { BruteForceProtector, DISABLED_REASON, PERMANENT_LOCKOUT } from './oidc/brute-force.js';
import { hashPassword, parsePasswordPolicy, verifyPassword } from './oidc/password.js';

export interface IdentityLogger {
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

export interface IdentityOptions {
  dataDir: string;
  adminUsername?: string;
  adminPassword?: string;
  /** True when the admin credentials are the built-in defaults: startup warns loudly. */
  adminCredentialsDefaulted?: boolean;
  /** Rebuild every entity table from the event log before serving. */
  rebuild?: boolean;
  logger?: IdentityLogger;
  /** After `rebuild`, close the store and exit the process (the `identity:rebuild` script). */
  exitAfterRebuild?: boolean;
  /** Where to register closing the store on shutdown (the app's close hooks). */
  onClose?: (hook: () => Promise<void>) => void;
}

/** Who called: the result of `authenticate` (bearer token or basic credentials). */
export interface Principal {
  realm: string;
  realmId: string;
  userId: string;
  username: string;
  clientId: string | undefined;
  /** Effective realm role names. */
  roles: string[];
  sessionId: string | undefined;
  claims: JWTPayload | undefined;
}

export interface VerifiedToken {
  realm: RealmEntity;
  claims: JWTPayload & { sid?: string; azp?: string; typ?: string; scope?: string };
  user: UserEntity;
  session: UserSession | undefined;
  client: ClientEntity | undefined;
}

const quietLogger: IdentityLogger = { info() {}, warn() {}, error() {} };

export class IdentityService {
  readonly sessions = new SessionStore();
  readonly bruteForce = new BruteForceProtector();
  private readonly tokenCache = new Map<string, { v: VerifiedToken; until: number; version: number }>();
  private eventCounter = 0;

  private constructor(
    readonly store: IdentityStore,
    readonly logger: IdentityLogger,
  ) {}

  static async open(opts: IdentityOptions): Promise<IdentityService> {
    const store = IdentityStore.open({ dataDir: opts.dataDir });
    const svc = new IdentityService(store, opts.logger ?? quietLogger);
    if (opts.rebuild) {
      const t = Date.now();
      const { events, skipped } = await store.rebuildFromLog();
      if (skipped.length) svc.logger.warn({ seqs: skipped }, 'identity rebuild skipped log records of failed writes (a key too large for LMDB)');
      svc.logger.info({ events, ms: Date.now() - t }, 'identity store rebuilt from the event log');
      if (opts.exitAfterRebuild) {
        await store.close();
        process.exit(0);
      }
    }
    await svc.bootstrap(opts);
    opts.onClose?.(() => svc.close());
    return svc;
  }

  private async bootstrap(opts: IdentityOptions): Promise<void> {
    if (repo.realmByName(this.store, MASTER)) return;
    const username = opts.adminUsername ?? 'admin';
    const password = opts.adminPassword ?? 'admin';
    if (opts.adminCredentialsDefaulted || (opts.adminUsername === undefined && opts.adminPassword === undefined)) {
      this.logger.warn({}, `!!! identity: created the master realm admin '${username}' with the DEFAULT password. Set ADMIN_USERNAME/ADMIN_PASSWORD and change it now. !!!`);
    }
    const [keys, encKeys] = await Promise.all([generateRealmKeys(MASTER), generateRealmKeys(MASTER)]);
    const cred = await hashPassword(password, parsePasswordPolicy(undefined));
    await this.store.write(undefined, (tx) => {
      const realm = createRealm(tx, { rep: { realm: MASTER, enabled: true, displayName: 'Keycloak', displayNameHtml: '<div class="kc-logo-text"><span>Keycloak</span></div>' }, keys, encKeys });
      const adminRole = repo.roleByName(tx, realm.id, '', 'admin')!;
      const user: UserEntity = {
        id: randomUUID(), realmId: realm.id, username: username.toLowerCase(), emailVerified: false, enabled: true, createdTimestamp: Date.now(),
        attributes: { is_temporary_admin: ['true'] }, requiredActions: [], credentials: [cred], federatedIdentities: [], notBefore: 0,
      };
      tx.put('users', user.id, user);
      tx.put('roleMappings', [user.id, realm._defaultRoleId], 1);
      tx.put('roleMappings', [user.id, adminRole.id], 1);
      tx.record({ operationType: 'CREATE', resourceType: 'REALM', resourcePath: MASTER });
    });
    this.logger.info({ realm: MASTER }, 'identity: master realm created');
  }

  realm(name: string): RealmEntity | undefined {
    return repo.realmByName(this.store, name);
  }

  async hashForRealm(realm: RealmEntity | undefined, password: string): Promise<StoredCredential> {
    return hashPassword(password, parsePasswordPolicy(realm?.passwordPolicy));
  }

  /** The realm's key ring (key provider components), cached until the next write. */
  keyRing(realm: RealmEntity): KeyRing {
    return keyRing(this.store, realm, this.store.version);
  }

  /** A jose key resolver: the enabled RS256 key named by the token's kid. */
  verifier(realm: RealmEntity): (header: JWSHeaderParameters) => Promise<CryptoKey | Uint8Array> {
    return async (header) => {
      const keys = this.keyRing(realm).byKid.get(header.kid ?? '');
      if (!keys) throw new Error('unknown kid');
      return verificationKey(keys);
    };
  }

  /** Verifies an access token of any realm: signature, expiry, type, live session and user. */
  async verifyAccessToken(token: string): Promise<VerifiedToken | null> {
    const now = Date.now();
    const hit = this.tokenCache.get(token);
    if (hit && hit.until > now) {
      if (hit.v.claims.sid && !this.sessions.get(hit.v.claims.sid)) return null;
      if (hit.version === this.store.version) return hit.v;
      const user = this.store.get<UserEntity>('users', hit.v.user.id);
      const realm = this.store.get<RealmEntity>('realms', hit.v.realm.id);
      if (!user || !user.enabled || !realm || (hit.v.claims.sid && !this.sessions.get(hit.v.claims.sid))) return null;
      // The signing key may have been disabled or removed since.
      if (!this.keyRing(realm).byKid.has(String(decodeProtectedHeader(token).kid))) return null;
      const v = { ...hit.v, user, realm };
      this.tokenCache.set(token, { v, until: hit.until, version: this.store.version });
      return v;
    }
    let claims: VerifiedToken['claims'];
    try {
      claims = decodeJwt(token);
    } catch {
      return null;
    }
    const m = typeof claims.iss === 'string' ? /\/realms\/([^/]+)$/.exec(claims.iss) : null;
    if (!m) return null;
    const realm = this.realm(decodeURIComponent(m[1]!));
    if (!realm) return null;
    try {
      ({ payload: claims } = await jwtVerify(token, this.verifier(realm), { algorithms: ['RS256'] }));
    } catch {
      return null;
    }
    if (claims.typ !== 'Bearer' || typeof claims.sub !== 'string') return null;
    const user = repo.userInRealm(this.store, realm.id, claims.sub);
    if (!user || !user.enabled) return null;
    const session = claims.sid ? this.sessions.get(claims.sid) : undefined;
    if (claims.sid && !session) return null;
    if (typeof claims.iat === 'number' && claims.iat < user.notBefore) return null;
    const client = claims.azp ? repo.clientByClientId(this.store, realm.id, claims.azp) : undefined;
    const v: VerifiedToken = { realm, claims, user, session, client };
    if (this.tokenCache.size > 50_000) this.tokenCache.clear();
    this.tokenCache.set(token, { v, until: Math.min(((claims.exp ?? 0) as number) * 1000, now + 60_000), version: this.store.version });
    return v;
  }

  /**
   * For the SQL coordinator: `Bearer <token>` of any realm, or `Basic base64(user:password)`
   * against a user of `basicRealm` (default master). Null when the credentials are not valid.
   */
  async authenticate(authorizationHeader: string | undefined, basicRealm = MASTER): Promise<Principal | null> {
    if (!authorizationHeader) return null;
    const [scheme, value] = authorizationHeader.trim().split(/\s+/, 2);
    if (!scheme || !value) return null;
    if (scheme.toLowerCase() === 'bearer') {
      const v = await this.verifyAccessToken(value);
      if (!v) return null;
      return this.principal(v.realm, v.user, v.claims.azp, v.claims.sid, v.claims);
    }
    if (scheme.toLowerCase() === 'basic') {
      const text = Buffer.from(value, 'base64').toString('utf8');
      const i = text.indexOf(':');
      if (i < 0) return null;
      const realm = this.realm(basicRealm);
      if (!realm || realm.enabled === false) return null;
      const user = this.findLoginUser(realm, text.slice(0, i));
      if (!user || !user.enabled) return null;
      if (!(await this.checkPassword(user, text.slice(i + 1)))) return null;
      return this.principal(realm, user, undefined, undefined, undefined);
    }
    return null;
  }

  private principal(realm: RealmEntity, user: UserEntity, clientId: string | undefined, sid: string | undefined, claims: JWTPayload | undefined): Principal {
    const roles = [...repo.effectiveUserRoleIds(this.store, user.id)]
      .map((id) => this.store.get<RoleEntity>('roles', id))
      .filter((r): r is RoleEntity => !!r && r.clientId === '')
      .map((r) => r.name);
    return { realm: realm.realm, realmId: realm.id, userId: user.id, username: user.username, clientId, roles, sessionId: sid, claims };
  }

  findLoginUser(realm: RealmEntity, login: string): UserEntity | undefined {
    const byName = repo.userByUsername(this.store, realm.id, login);
    if (byName) return byName;
    if (realm.loginWithEmailAllowed !== false && login.includes('@')) {
      const list = repo.usersByEmail(this.store, realm.id, login);
      if (list.length === 1) return list[0];
    }
    return undefined;
  }

  async checkPassword(user: UserEntity, password: string): Promise<boolean> {
    const cred = user.credentials.find((c) => c.type === 'password');
    if (!cred) return false;
    return verifyPassword(cred, password);
  }

  /**
   * Counts a failed login against brute-force protection; a permanent lockout disables the user
   * (one store write, not an admin event). Returns what happened.
   */
  async loginFailed(realm: RealmEntity, user: UserEntity, ip: string): Promise<'permanent' | 'temporary' | 'none'> {
    const outcome = this.bruteForce.failure(realm, user.id, ip);
    if (outcome === 'permanent') {
      await this.store.write(undefined, (tx) => {
        tx.realmId = realm.id;
        const cur = tx.get<UserEntity>('users', user.id);
        if (cur) tx.put('users', cur.id, { ...cur, enabled: false, attributes: { ...cur.attributes, [DISABLED_REASON]: [PERMANENT_LOCKOUT] } });
      });
      this.sessions.removeWhere((s) => s.userId === user.id);
    }
    return outcome;
  }

  /** Records a user event (LOGIN, LOGIN_ERROR, ...) when the realm has events enabled. */
  userEvent(realm: RealmEntity, ev: { type: string; clientId?: string | undefined; userId?: string | undefined; sessionId?: string | undefined; ipAddress: string; error?: string; details?: Record<string, string> }): void {
    if (!realm.eventsEnabled) return;
    const enabled = realm.enabledEventTypes as string[] | undefined;
    if (enabled && enabled.length && !enabled.includes(ev.type)) return;
    const time = Date.now();
    const rec = { id: randomUUID(), time, realmId: realm.id, ...ev };
    void this.store.db('userEvents').put([realm.id, time, ++this.eventCounter], rec);
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}

export async function openIdentityService(opts: IdentityOptions): Promise<IdentityService> {
  return IdentityService.open(opts);
}
