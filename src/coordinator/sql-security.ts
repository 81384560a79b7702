// The SQL face's guard: every `/v1` resource but `/v1/info` and `/v1/status` wants credentials (HTTP
// Basic or a bearer token, checked by the identity service), and what the caller may then do is the
// access control's to say. A missing or bad credential is a bare 401 with Trino's challenges;
// nothing about why reaches the client (the reason is logged). Task writes and results are
// internal: the node's shared secret or the `admin` role. With authentication off (local
// benchmarking), the user is whoever the session headers name, as before.

import { timingSafeEqual } from 'node:crypto';
import { text, type Handler, type HttpReply, type HttpRequest, type RouteRegistry } from '../http/types.js';
import type { Logger } from '../util/logger.js';
import { accessDenied, AccessControl, type Principal, type QueryAccess, type TablePrivilege } from './access-control.js';
import type { WriteStatement } from '../sql/ddl.js';

export type AuthOutcome = { readonly ok: true; readonly identity: Principal } | { readonly ok: false; readonly failure: string; readonly user?: string };

/** Checks credentials: the identity service's SqlAuthenticator (wired by the app). */
export interface CredentialsChecker {
  readonly realmName: string;
  authenticate(authorization: string | undefined, remoteAddress: string, headers?: object): AuthOutcome | Promise<AuthOutcome>;
  /** Another user's roles and groups, for a statement run as them (impersonation). */
  lookup(user: string): Principal | undefined;
}

export interface SqlSecurityOptions {
  /** Off: no credentials wanted, the session headers name the user (local benchmarking). */
  readonly authentication: boolean;
  readonly checker: CredentialsChecker | undefined;
  /** Rules from --access-control-file; without one the built-in rules (or, with authentication off, none). */
  readonly accessControl: AccessControl | undefined;
  /** The node's internal shared secret (Trino's internal-communication.shared-secret). */
  readonly internalSecret: string;
  /** Accept Basic credentials over plain HTTP from other hosts (Trino's http-server.authentication.allow-insecure-over-http). */
  readonly allowInsecurePassword: boolean;
  /** Whether the server speaks TLS (a password then never travels in clear). */
  readonly tls: boolean;
  readonly logger: Logger;
}

/** The header the node's own requests carry its shared secret in. */
export const INTERNAL_SECRET_HEADER = 'x-trino-internal-secret';

const INTERNAL_CALLER: Principal = { user: '$internal', roles: ['admin'], groups: [] };

const CHALLENGES = (realm: string): readonly string[] => [`Basic realm="${realm}"`, `Bearer realm="${realm}"`];

/** Anyone the rules file may name: with authentication off there are no roles to go by. */
const ALLOW_ALL = AccessControl.fromDocument({}, 'no rules (authentication off)');

function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1' || address === 'localhost';
}

export class SqlSecurity {
  readonly access: AccessControl;
  private readonly unauthorized: HttpReply;
  private readonly secret: Buffer;

  constructor(private readonly options: SqlSecurityOptions) {
    this.access = options.accessControl ?? (options.authentication ? AccessControl.defaults() : ALLOW_ALL);
    const realm = options.checker?.realmName ?? 'analytics';
    this.unauthorized = text(401, 'Unauthorized', { 'WWW-Authenticate': CHALLENGES(realm) });
    this.secret = Buffer.from(options.internalSecret);
    if (options.authentication && !options.checker) throw new Error('authentication is on but no credentials checker is configured');
  }

  get authentication(): boolean {
    return this.options.authentication;
  }

  /** The caller of a request a guarded handler runs for. */
  principalOf(req: HttpRequest): Principal {
    const p = req.caller as Principal | undefined;
    if (p === undefined) throw new Error('principalOf: the request did not pass the guard');
    return p;
  }

  /** A route registry whose handlers run only for authenticated callers. */
  guarded(router: RouteRegistry): RouteRegistry {
    return { add: (method, pattern, handler) => router.add(method, pattern, this.guard(handler)) };
  }

  /** A route registry for internal resources: the node's shared secret, or an authenticated `admin`. */
  internal(router: RouteRegistry): RouteRegistry {
    return { add: (method, pattern, handler) => router.add(method, pattern, this.guard(handler, true)) };
  }

  private guard(handler: Handler, internal = false): Handler {
    return (req) => {
      if (internal && this.hasInternalSecret(req)) {
        req.caller = INTERNAL_CALLER;
        return handler(req);
      }
      const outcome = this.authenticate(req);
      return outcome instanceof Promise ? outcome.then((o) => this.admit(o, req, handler, internal)) : this.admit(outcome, req, handler, internal);
    };
  }

  /** Runs the handler for an authenticated caller; the 401 (or a refusal the check made) otherwise. */
  private admit(o: AuthOutcome | HttpReply, req: HttpRequest, handler: Handler, internal: boolean): HttpReply | Promise<HttpReply> {
    if ('status' in o) return o;
    if (!o.ok) {
      this.options.logger.info({ event: 'authentication_failed', reason: o.failure, user: o.user, remote: req.remoteAddress, method: req.method, path: req.path }, 'SQL authentication failed');
      return this.unauthorized;
    }
    if (internal && this.options.authentication && !o.identity.roles.includes('admin')) return text(403, 'Forbidden: internal resource');
    req.caller = o.identity;
    return handler(req);
  }

  private hasInternalSecret(req: HttpRequest): boolean {
    const given = req.headers[INTERNAL_SECRET_HEADER];
    if (given === undefined) return false;
    const bytes = Buffer.from(given);
    return bytes.length === this.secret.length && timingSafeEqual(bytes, this.secret);
  }

  private authenticate(req: HttpRequest): AuthOutcome | HttpReply | Promise<AuthOutcome> {
    if (!this.options.authentication) return { ok: true, identity: { user: headerUser(req.headers) ?? 'anonymous', roles: [], groups: [] } };
    const authorization = req.headers.authorization;
    if (authorization !== undefined && /^basic\s/iu.test(authorization) && !this.options.tls && !this.options.allowInsecurePassword && !isLoopback(req.remoteAddress)) {
      return text(403, 'Password authentication over plain HTTP is refused: connect over HTTPS (--tls-cert/--tls-key), or start the server with --allow-insecure-password');
    }
    return this.options.checker!.authenticate(authorization, req.remoteAddress, req.headers);
  }

  /**
   * The user a statement runs as: the session header's user when it names someone the principal
   * may impersonate, else the principal. Throws PERMISSION_DENIED for an impersonation not allowed.
   */
  sessionUser(principal: Principal, requested: string | undefined): string {
    if (requested === undefined || requested === principal.user || !this.options.authentication) return requested ?? principal.user;
    if (!this.access.canImpersonate(principal, requested)) throw accessDenied(`User ${principal.user} cannot impersonate user ${requested}`);
    return requested;
  }

  /** Whose rights a statement runs with: the principal's, or those of the user it impersonates. */
  effectivePrincipal(principal: Principal, sessionUser: string): Principal {
    if (sessionUser === principal.user) return principal;
    const known = this.options.checker?.lookup(sessionUser);
    if (known) return known;
    // A name the realm does not know: its rights are those rules give any user of that name.
    let nobody = this.unknownUsers.get(sessionUser);
    if (nobody === undefined) {
      if (this.unknownUsers.size >= 10_000) this.unknownUsers.clear();
      this.unknownUsers.set(sessionUser, (nobody = { user: sessionUser, roles: [], groups: [] }));
    }
    return nobody;
  }

  private readonly unknownUsers = new Map<string, Principal>();

  canAccessQuery(principal: Principal, access: QueryAccess, owner: string): boolean {
    return this.access.canAccessQuery(principal, access, owner);
  }

  /** Throws PERMISSION_DENIED unless the principal may use the table so. */
  checkTable(principal: Principal, catalog: string, schema: string, table: string, privilege: TablePrivilege): void {
    if (this.access.tablePrivileges(principal, catalog, schema, table).has(privilege)) return;
    const what = `${catalog}.${schema}.${table}`;
    const verb: Record<TablePrivilege, string> = {
      SELECT: `Cannot select from table ${what}`,
      INSERT: `Cannot insert into table ${what}`,
      DELETE: `Cannot delete from table ${what}`,
      UPDATE: `Cannot update table ${what}`,
      OWNERSHIP: `Cannot change table ${what}`,
      GRANT_SELECT: `Cannot grant select on table ${what}`,
    };
    throw accessDenied(verb[privilege]);
  }

  /**
   * Throws PERMISSION_DENIED unless the principal may run the write statement. `qualify` resolves a
   * name in the session; undefined when it cannot (the statement then fails on the name itself).
   */
  checkWrite(principal: Principal, statement: WriteStatement, qualifyName: (name: readonly string[]) => { catalog: string; schema: string; name: string } | undefined): void {
    const unresolved = { catalog: '', schema: '', name: '' };
    let complete = true;
    const qualify = (name: readonly string[]): { catalog: string; schema: string; name: string } => {
      const q = qualifyName(name);
      if (q === undefined) complete = false;
      return q ?? unresolved;
    };
    const schemaOf = (name: readonly string[]): { catalog: string; schema: string } => {
      const q = qualify([...name, '$']);
      return { catalog: q.catalog, schema: q.schema };
    };
    try {
      this.checkWriteOf(principal, statement, qualify, schemaOf);
    } catch (e) {
      if (complete) throw e;
    }
  }

  private checkWriteOf(
    principal: Principal,
    statement: WriteStatement,
    qualify: (name: readonly string[]) => { catalog: string; schema: string; name: string },
    schemaOf: (name: readonly string[]) => { catalog: string; schema: string },
  ): void {
    switch (statement.kind) {
      case 'createSchema':
      case 'dropSchema': {
        const { catalog, schema } = schemaOf(statement.name);
        if (!this.access.isSchemaOwner(principal, catalog, schema)) throw accessDenied(`Cannot ${statement.kind === 'createSchema' ? 'create' : 'drop'} schema ${catalog}.${schema}`);
        return;
      }
      case 'insert': {
        const t = qualify(statement.name);
        return this.checkTable(principal, t.catalog, t.schema, t.name, 'INSERT');
      }
      case 'delete':
      case 'truncate': {
        const t = qualify(statement.name);
        return this.checkTable(principal, t.catalog, t.schema, t.name, 'DELETE');
      }
      case 'renameTable': {
        const t = qualify(statement.name);
        const to = qualify(statement.newName);
        this.checkTable(principal, t.catalog, t.schema, t.name, 'OWNERSHIP');
        return this.checkTable(principal, to.catalog, to.schema, to.name, 'OWNERSHIP');
      }
      default: {
        const t = qualify(statement.name);
        return this.checkTable(principal, t.catalog, t.schema, t.name, 'OWNERSHIP');
      }
    }
  }
}

/** The user named by the session headers (in the spellings' order the session reads them) or by Basic credentials, without checking them. */
function headerUser(h: Readonly<Record<string, string>>): string | undefined {
  return h['x-engine-user'] || h['x-trino-user'] || h['x-presto-user'] || basicAuthUser(h);
}

/** The user name of Basic credentials, unchecked (who the session says it is when nothing checks). */
export function basicAuthUser(headers: Readonly<Record<string, string>>): string | undefined {
  const auth = headers.authorization;
  if (!auth?.toLowerCase().startsWith('basic ')) return undefined;
  const decoded = Buffer.from(auth.slice(6).trim(), 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  return i > 0 ? decoded.slice(0, i) : undefined;
}
