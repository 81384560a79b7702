// GET /v1/query (running and recent queries), GET /v1/query/{id} (QueryInfo), DELETE /v1/query/{id}
// (cancel, 204 even for unknown ids as Trino does), PUT /v1/query/{id}/killed.

import { json, noContent, text, type RouteRegistry } from '../http/types.js';
import { EngineError } from '../util/engine-error.js';
import { basicQueryInfo, queryInfo } from './query-info.js';
import type { QueryManager } from './query-manager.js';

export function registerQueryRoutes(router: RouteRegistry, manager: QueryManager): void {
  router.add('GET', '/v1/query', (req) => {
    const state = req.query.get('state')?.toUpperCase();
    const list = manager
      .list()
      .filter((q) => state === undefined || q.state === state)
      .sort((a, b) => a.createTime - b.createTime)
      .map((q) => basicQueryInfo(q, req.baseUrl));
    return json(200, list);
  });

  router.add('GET', '/v1/query/:queryId', (req) => {
    const q = manager.get(req.params.queryId);
    if (!q) return text(410, 'Query not found');
    return json(200, queryInfo(q, req.baseUrl));
  });

  router.add('DELETE', '/v1/query/:queryId', (req) => {
    manager.cancel(req.params.queryId);
    return noContent();
  });

  // Partial cancel (the statement's partialCancelUri): the stage stops scanning; results so far stand.
  router.add('DELETE', '/v1/stage/:stageId', (req) => {
    const m = /^(.+)\.(\d+)$/u.exec(req.params.stageId);
    const q = m ? manager.get(m[1]) : undefined;
    if (!m || !q) return text(404, 'Stage not found');
    if (q.execution && !q.done && !q.execution.cancelStage(Number(m[2]))) return text(404, 'Stage not found');
    return noContent();
  });

  router.add('PUT', '/v1/query/:queryId/killed', (req) => {
    const q = manager.get(req.params.queryId);
    if (!q) return text(410, 'Query not found');
    if (q.done) return text(409, 'Query is already done');
    const message = req.body.toString('utf8').trim();
    q.fail(new EngineError('ADMINISTRATIVELY_KILLED', message ? `Query killed. Message: ${message}` : 'Query killed. No message provided.'));
    return { status: 202 };
  });
}
