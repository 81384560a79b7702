// GET /v1/query (running and recent queries), GET /v1/query/{id} (QueryInfo), DELETE /v1/query/{id}
// (cancel, 204 even for unknown ids as Trino does), PUT /v1/query/{id}/killed. Each caller sees and
// kills only the queries the access control lets it (by default: its own; `admin`: all).

import { json, noContent, text, type HttpRequest, type RouteRegistry } from '../http/types.js';
import { EngineError } from '../util/engine-error.js';
import type { QueryAccess } from './access-control.js';
import { basicQueryInfo, queryInfo } from './query-info.js';
import type { QueryManager } from './query-manager.js';
import type { Query } from './query.js';
import type { SqlSecurity } from './sql-security.js';

/** Whether the request's caller may `access` the query (always, without a guard). */
export function mayAccessQuery(security: SqlSecurity | undefined, req: HttpRequest, query: Query, access: QueryAccess): boolean {
  if (!security) return true;
  return security.canAccessQuery(security.principalOf(req), access, query.session.user);
}

const FORBIDDEN = (id: string, what: string) => text(403, `Access Denied: Cannot ${what} query ${id}`);

export function registerQueryRoutes(router: RouteRegistry, manager: QueryManager, security?: SqlSecurity): void {
  router.add('GET', '/v1/query', (req) => {
    const state = req.query.get('state')?.toUpperCase();
    const list = manager
      .list()
      .filter((q) => (state === undefined || q.state === state) && mayAccessQuery(security, req, q, 'view'))
      .sort((a, b) => a.createTime - b.createTime)
      .map((q) => basicQueryInfo(q, req.baseUrl));
    return json(200, list);
  });

  router.add('GET', '/v1/query/:queryId', (req) => {
    const q = manager.get(req.params.queryId);
    if (!q) return text(410, 'Query not found');
    if (!mayAccessQuery(security, req, q, 'view')) return FORBIDDEN(q.id, 'view');
    return json(200, queryInfo(q, req.baseUrl));
  });

  router.add('DELETE', '/v1/query/:queryId', (req) => {
    const q = manager.get(req.params.queryId);
    if (q && !mayAccessQuery(security, req, q, 'kill')) return FORBIDDEN(q.id, 'kill');
    q?.cancel();
    return noContent();
  });

  // Partial cancel (the statement's partialCancelUri): the stage stops scanning; results so far stand.
  router.add('DELETE', '/v1/stage/:stageId', (req) => {
    const m = /^(.+)\.(\d+)$/u.exec(req.params.stageId);
    const q = m ? manager.get(m[1]) : undefined;
    if (!m || !q) return text(404, 'Stage not found');
    if (!mayAccessQuery(security, req, q, 'kill')) return FORBIDDEN(q.id, 'kill');
    if (q.execution && !q.done && !q.execution.cancelStage(Number(m[2]))) return text(404, 'Stage not found');
    return noContent();
  });

  router.add('PUT', '/v1/query/:queryId/killed', (req) => {
    const q = manager.get(req.params.queryId);
    if (!q) return text(410, 'Query not found');
    if (!mayAccessQuery(security, req, q, 'kill')) return FORBIDDEN(q.id, 'kill');
    if (q.done) return text(409, 'Query is already done');
    const message = req.body.toString('utf8').trim();
    q.fail(new EngineError('ADMINISTRATIVELY_KILLED', message ? `Query killed. Message: ${message}` : 'Query killed. No message provided.'));
    return { status: 202 };
  });
}
