// The statement protocol: POST /v1/statement, GET and DELETE /v1/statement/{queryId}/{token}.
// Session headers are read in any of the X-Engine-, X-Trino- and X-Presto- spellings. A statement's
// GETs and DELETE are answered only to whoever POSTed it (anyone else: 404, as for an unknown id).

import { json, jsonText, noContent, text, type HttpReply, type HttpRequest, type RouteRegistry } from '../http/types.js';
import { parseDataSize, parseDuration } from '../util/wire-format.js';
import type { QueryManager } from './query-manager.js';
import type { AnswerResult, HeaderPrefix, Query, Session } from './query.js';
import { basicAuthUser, type SqlSecurity } from './sql-security.js';
import { toEngineError } from '../util/engine-error.js';

const MAX_WAIT_MS = 1000;
const DEFAULT_TARGET_RESULT_BYTES = 1024 * 1024;
const MAX_TARGET_RESULT_BYTES = 128 * 1024 * 1024;
const PREFIXES = ['x-engine-', 'x-trino-', 'x-presto-'] as const;

export function headerPrefixOf(headers: Readonly<Record<string, string>>): HeaderPrefix {
  let presto = false;
  for (const h in headers) {
    if (h.startsWith('x-trino-')) return 'X-Trino-';
    if (h.startsWith('x-presto-')) presto = true;
  }
  return presto ? 'X-Presto-' : 'X-Engine-';
}

/** Each suffix's three spellings, built once (a statement reads about ten headers). */
const SPELLINGS = new Map<string, readonly string[]>();

/** A session header in whichever spelling the client sent. */
export function sessionHeader(headers: Readonly<Record<string, string>>, suffix: string): string | undefined {
  let names = SPELLINGS.get(suffix);
  if (!names) SPELLINGS.set(suffix, (names = PREFIXES.map((p) => p + suffix)));
  for (const name of names) {
    const v = headers[name];
    if (v !== undefined && v !== '') return v;
  }
  return undefined;
}

function parseSessionProperties(raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!raw) return out;
  for (const part of raw.split(',')) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    const key = part.slice(0, i).trim();
    let value = part.slice(i + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      // keep the raw value
    }
    out[key] = value;
  }
  return out;
}

/** What a session takes from the header fields alone; `user` as the headers name it (checked later). */
type HeaderSession = Omit<Session, 'remoteUserAddress' | 'startTime' | 'principal' | 'denial'>;

/**
 * The header part of sessions by headers object: the HTTP layer hands a connection's requests the
 * same (read-only) headers object while their header fields stay the same, so a client's
 * statements read their ten-odd session headers once.
 */
const headerSessions = new WeakMap<Readonly<Record<string, string>>, HeaderSession>();

function headerSessionOf(h: Readonly<Record<string, string>>): HeaderSession {
  let session = headerSessions.get(h);
  if (session === undefined) {
    session = {
      user: sessionHeader(h, 'user') ?? basicAuthUser(h) ?? 'anonymous',
      source: sessionHeader(h, 'source'),
      catalog: sessionHeader(h, 'catalog')?.toLowerCase(),
      schema: sessionHeader(h, 'schema')?.toLowerCase(),
      userAgent: h['user-agent'],
      timeZone: sessionHeader(h, 'time-zone'),
      clientInfo: sessionHeader(h, 'client-info'),
      properties: Object.freeze(parseSessionProperties(sessionHeader(h, 'session'))),
      preparedStatements: Object.freeze(parseSessionProperties(sessionHeader(h, 'prepared-statement'))),
      headerPrefix: headerPrefixOf(h),
    };
    headerSessions.set(h, session);
  }
  return session;
}

/**
 * The session of a statement request. With `security`, the user is the authenticated principal, or
 * the user the session header names when the principal may impersonate them (else the statement
 * will fail with PERMISSION_DENIED before any work).
 */
export function sessionFromRequest(req: HttpRequest, security?: SqlSecurity): Session {
  const s = headerSessionOf(req.headers);
  let user = s.user;
  let principal: Session['principal'];
  let denial: Session['denial'];
  if (security?.authentication) {
    principal = security.principalOf(req);
    try {
      user = security.sessionUser(principal, sessionHeader(req.headers, 'user'));
    } catch (e) {
      user = principal.user;
      denial = toEngineError(e);
    }
  }
  return {
    user,
    source: s.source,
    catalog: s.catalog,
    schema: s.schema,
    remoteUserAddress: req.remoteAddress,
    userAgent: s.userAgent,
    timeZone: s.timeZone,
    clientInfo: s.clientInfo,
    properties: s.properties,
    preparedStatements: s.preparedStatements,
    headerPrefix: s.headerPrefix,
    startTime: Date.now(),
    // Always both keys: every session object has one shape, whoever sent it.
    principal,
    denial,
  };
}

/** Whether the caller may follow or cancel the statement: the principal who submitted it. */
function isSubmitter(security: SqlSecurity | undefined, req: HttpRequest, query: Query): boolean {
  if (!security?.authentication) return true;
  return query.session.principal?.user === security.principalOf(req).user;
}

function maxWaitOf(req: HttpRequest): number {
  const raw = req.query.get('maxWait');
  if (!raw) return MAX_WAIT_MS;
  try {
    return Math.max(0, Math.min(MAX_WAIT_MS, parseDuration(raw)));
  } catch {
    return MAX_WAIT_MS;
  }
}

function targetResultBytesOf(req: HttpRequest): number {
  const raw = req.query.get('targetResultSize');
  if (!raw) return DEFAULT_TARGET_RESULT_BYTES;
  try {
    return Math.max(1, Math.min(MAX_TARGET_RESULT_BYTES, parseDataSize(raw)));
  } catch {
    return DEFAULT_TARGET_RESULT_BYTES;
  }
}

function parseToken(raw: string): number | undefined {
  return /^\d{1,15}$/u.test(raw) ? Number(raw) : undefined;
}

function statementReply(result: AnswerResult): HttpReply {
  if (result.status !== 200) {
    return result.status === 410 ? text(410, 'Invalid token: data for this token was already acknowledged') : text(404, 'Query not found');
  }
  return jsonText(200, result.answer.json, result.answer.headers, result.answer.ascii);
}

export function registerStatementRoutes(router: RouteRegistry, manager: QueryManager, security?: SqlSecurity): void {
  router.add('POST', '/v1/statement', (req) => {
    const sql = req.body.toString('utf8');
    if (sql.trim() === '') return text(400, 'SQL statement is empty');
    const { answer } = manager.submit(sql, sessionFromRequest(req, security), req.baseUrl);
    return jsonText(200, answer.json, answer.headers, answer.ascii);
  });

  // Answered at once when the query has something to say now (rows, its end), else when it has.
  router.add('GET', '/v1/statement/:queryId/:token', (req) => {
    const query = manager.get(req.params.queryId);
    const token = parseToken(req.params.token);
    if (!query || token === undefined || !isSubmitter(security, req, query)) return text(404, 'Query not found');
    const result = query.answer(token, maxWaitOf(req), targetResultBytesOf(req), req.signal);
    return result instanceof Promise ? result.then(statementReply) : statementReply(result);
  });

  router.add('DELETE', '/v1/statement/:queryId/:token', (req) => {
    const query = manager.get(req.params.queryId);
    if (!query || !isSubmitter(security, req, query)) return text(404, 'Query not found');
    query.cancel();
    return noContent();
  });
}
