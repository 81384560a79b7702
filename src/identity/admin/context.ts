// The admin request context and route registration: bearer check (401), realm lookup (404),
// permission evaluator, body validation, and the admin event builder that writes in the same
// transaction as the change (STYLE 14).
import type { z } from 'zod';
import { HttpError, json, noContent, type HttpReply, type HttpRequest, type RouteRegistry } from '../../http/types.js';
import { ERR, errorBody, errorMessage } from '../errors.js';
import { KeyTooLargeError } from '../store/keys.js';
import { MAX_NAME_LENGTH } from '../model/schemas.js';
import type { IdentityService } from '../service.js';
import type { RealmEntity } from '../store/entities.js';
import type { AuthDetails, Operation, Tx } from '../store/store.js';
import { parseBody, parseJson } from '../model/common.js';
import { RealmAuth, type Caller } from './permissions.js';

export class AdminEventBuilder {
  constructor(private readonly tx: Tx) {}
  private rec(operationType: Operation, resourceType: string, resourcePath: string, representation?: unknown): void {
    this.tx.record(representation === undefined ? { operationType, resourceType, resourcePath } : { operationType, resourceType, resourcePath, representation });
  }
  create(resourceType: string, path: string, rep?: unknown): void {
    this.rec('CREATE', resourceType, path, rep);
  }
  update(resourceType: string, path: string, rep?: unknown): void {
    this.rec('UPDATE', resourceType, path, rep);
  }
  delete(resourceType: string, path: string, rep?: unknown): void {
    this.rec('DELETE', resourceType, path, rep);
  }
  action(resourceType: string, path: string, rep?: unknown): void {
    this.rec('ACTION', resourceType, path, rep);
  }
}

export interface AdminContext {
  readonly req: HttpRequest;
  readonly svc: IdentityService;
  readonly caller: Caller;
  /** The target realm; on routes without a realm, the caller's realm. */
  readonly realm: RealmEntity;
  readonly auth: RealmAuth;
  param(name: string): string;
  query(name: string): string | undefined;
  queryInt(name: string, dflt: number): number;
  queryBool(name: string, dflt: boolean): boolean;
  body<T>(schema: z.ZodType<T>): T;
  json(): unknown;
  write<T>(fn: (tx: Tx, ev: AdminEventBuilder) => T): Promise<T>;
  /** `Location` for a new child of the request URL. */
  created(id: string, body?: unknown): HttpReply;
  /** The request path below `/admin/realms/{realm}/` (Keycloak's admin event resourcePath), plus extra segments. */
  here(...extra: string[]): string;
  /** One write that replaces the realm entity with `fn(current)` and records the event fn gives. */
  updateRealm<T = void>(fn: (cur: RealmEntity, ev: AdminEventBuilder, tx: Tx) => { next: RealmEntity; result?: T }): Promise<T>;
}

export type AdminHandler = (ctx: AdminContext) => HttpReply | Promise<HttpReply>;

const INTERNAL = () => json(500, { error: 'unknown_error', error_description: 'For more on this error consult the server log.' });

/** The 404 an unknown value of a path parameter gets, by parameter name. */
const NOT_FOUND_BY_PARAM: Record<string, () => HttpError> = {
  realm: ERR.realmNotFound,
  userId: ERR.userNotFound,
  memberId: ERR.userNotFound,
  clientUuid: ERR.clientNotFound,
  client: ERR.clientNotFound,
  targetClient: ERR.clientNotFound,
  roleClient: ERR.clientNotFound,
  groupId: ERR.groupNotFound,
  roleName: ERR.roleNotFound,
  roleId: ERR.roleNotFound,
  scopeId: ERR.clientScopeNotFound,
  mapperId: ERR.mapperNotFound,
};

/** Path parameters longer than any id or name column cannot name anything: 404 before any lookup. */
function checkParamLengths(names: readonly string[], params: Readonly<Record<string, string>>): void {
  for (const n of names) {
    if ((params[n]?.length ?? 0) > MAX_NAME_LENGTH) throw (NOT_FOUND_BY_PARAM[n] ?? ERR.routeNotFound)();
  }
}

const paramNames = (pattern: string): string[] => pattern.split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1));

/** The 404 of an entity that is gone, by table. */
const NOT_FOUND_BY_TABLE = {
  realms: ERR.realmNotFound,
  users: ERR.userNotFound,
  clients: ERR.clientNotFound,
  clientScopes: ERR.clientScopeNotFound,
  groups: ERR.groupNotFound,
  roles: ERR.roleNotFound,
  organizations: () => errorMessage(404, 'Organization not found.'),
} as const;

/**
 * The entity as the write sees it. A handler that awaited (a settle, hashing, key generation)
 * between finding the entity and writing may find it deleted meanwhile: that is its 404.
 */
export function current<T>(tx: Tx, table: keyof typeof NOT_FOUND_BY_TABLE, id: string): T {
  const v = tx.get<T>(table, id);
  if (v === undefined) throw NOT_FOUND_BY_TABLE[table]();
  return v;
}

export function ok(value: unknown): HttpReply {
  return json(200, value);
}
export { noContent };

export class AdminRoutes {
  constructor(
    private readonly registry: RouteRegistry,
    readonly svc: IdentityService,
  ) {}

  private async caller(req: HttpRequest): Promise<Caller> {
    const h = req.headers['authorization'];
    const m = h ? /^Bearer\s+(\S+)$/i.exec(h.trim()) : null;
    if (!m) throw ERR.unauthorized();
    const v = await this.svc.verifyAccessToken(m[1]!);
    if (!v) throw ERR.unauthorized();
    return { realm: v.realm, user: v.user, client: v.client, ipAddress: req.remoteAddress };
  }

  private wrap(handler: AdminHandler, needsRealm: boolean, pattern: string) {
    const params = paramNames(pattern);
    return async (req: HttpRequest): Promise<HttpReply> => {
      try {
        const caller = await this.caller(req);
        checkParamLengths(params, req.params);
        let realm = caller.realm;
        if (needsRealm) {
          const r = this.svc.realm(req.params.realm ?? '');
          if (!r) throw ERR.realmNotFound();
          realm = r;
        }
        const auth = new RealmAuth(this.svc.store, caller, realm);
        const svc = this.svc;
        let parsed: { v: unknown } | undefined;
        const ctx: AdminContext = {
          req,
          svc,
          caller,
          realm,
          auth,
          param: (n) => req.params[n] ?? '',
          query: (n) => req.query.get(n) ?? undefined,
          queryInt: (n, d) => {
            const v = req.query.get(n);
            if (v === null || v === '') return d;
            const x = Number(v);
            if (!Number.isFinite(x)) throw errorBody(400, 'invalid_request', `Invalid ${n}`);
            return Math.trunc(x);
          },
          queryBool: (n, d) => {
            const v = req.query.get(n);
            if (v === null || v === '') return d;
            return v.toLowerCase() === 'true';
          },
          body: (schema) => parseBody(schema, req.body),
          json: () => (parsed ??= { v: parseJson(req.body) }).v,
          write: (fn) => {
            const details: AuthDetails = { realmId: caller.realm.id, clientId: caller.client?.id ?? '', userId: caller.user.id, ipAddress: req.remoteAddress };
            return svc.store.write(details, (tx) => {
              tx.realmId = realm.id;
              return fn(tx, new AdminEventBuilder(tx));
            });
          },
          here: (...extra) => {
            const rel = req.path.replace(/^\/admin\/realms\/[^/]+\/?/, '').replace(/\/$/, '');
            return [rel, ...extra].filter(Boolean).map((x) => { try { return decodeURIComponent(x); } catch { return x; } }).join('/');
          },
          updateRealm: (fn) =>
            ctx.write((tx, ev) => {
              const cur = tx.get<RealmEntity>('realms', realm.id);
              if (!cur) throw ERR.realmNotFound();
              const { next, result } = fn(cur, ev, tx);
              tx.put('realms', realm.id, next);
              return result as never;
            }),
          created: (id, body) => {
            const headers = { Location: `${req.baseUrl}${req.path.replace(/\/$/, '')}/${encodeURIComponent(id)}` };
            return body === undefined ? { status: 201, headers } : json(201, body, headers);
          },
        };
        return await handler(ctx);
      } catch (error) {
        if (error instanceof HttpError) return error.reply;
        if (error instanceof KeyTooLargeError) return errorMessage(400, 'error-invalid-length-too-long').reply;
        this.svc.logger.error({ err: error, path: req.path }, 'identity admin request failed');
        return INTERNAL();
      }
    };
  }

  /** A route under `/admin/realms/:realm`. */
  realm(method: string, sub: string, handler: AdminHandler): void {
    const pattern = `/admin/realms/:realm${sub}`;
    this.registry.add(method, pattern, this.wrap(handler, true, pattern));
  }

  /** A route anywhere under `/admin` that needs a token but no target realm (or names it itself). */
  root(method: string, pattern: string, handler: AdminHandler, needsRealm = false): void {
    this.registry.add(method, pattern, this.wrap(handler, needsRealm, pattern));
  }
}

/** Keycloak's first/max paging; negative or absent values are ignored. */
export function page<T>(items: T[], first: number, max: number): T[] {
  const start = first > 0 ? first : 0;
  return max >= 0 ? items.slice(start, start + max) : items.slice(start);
}
