// The task resource: TaskInfo for every task, task output as Arrow IPC pages with sequence tokens
// (the page exchange a multi-node mode will use), and POST /v1/task/{taskId} to run a fragment
// over a table's splits — the documented task request (see docs/API.md). Reading task information
// follows the query's visibility; task writes and results are internal (`internal` registry: the
// node's shared secret or the `admin` role).

import { z } from 'zod';
import { pagesToIpc } from '../data/arrow.js';
import { typeDisplayName } from '../data/types.js';
import { HttpError, json, noContent, text, type HttpReply, type RouteRegistry } from '../http/types.js';
import type { FragmentSpec } from '../exec/specs.js';
import { EngineError } from '../util/engine-error.js';
import { parseDataSize, parseDuration } from '../util/wire-format.js';
import { headerPrefixOf, sessionHeader } from './statement-resource.js';
import { taskInfo } from './query-info.js';
import type { QueryManager } from './query-manager.js';
import type { SqlTask } from './task.js';
import type { StandaloneTasks } from './standalone-tasks.js';
import { mayAccessQuery } from './query-resource.js';
import type { SqlSecurity } from './sql-security.js';

const DEFAULT_MAX_RESULT_BYTES = 16 * 1024 * 1024;

const taskRequestSchema = z
  .object({
    fragment: z
      .object({
        source: z.object({ kind: z.literal('scan'), columns: z.array(z.number().int().nonnegative()).max(10_000) }).passthrough(),
        operators: z.array(z.object({ op: z.enum(['filterProject', 'aggregate', 'orderBy', 'limit']) }).passthrough()).max(100),
      })
      .passthrough(),
    table: z.object({ catalog: z.string().min(1), schema: z.string().min(1), table: z.string().min(1) }).strict(),
  })
  .strict();

export type TaskRequest = z.infer<typeof taskRequestSchema>;

export function registerTaskRoutes(router: RouteRegistry, manager: QueryManager, standalone: StandaloneTasks, security?: SqlSecurity, internal: RouteRegistry = router): void {
  const allTasks = (): { task: SqlTask; query?: ReturnType<QueryManager['get']> }[] => {
    const out: { task: SqlTask; query?: ReturnType<QueryManager['get']> }[] = [];
    for (const q of manager.list()) for (const t of q.execution?.tasks ?? []) out.push({ task: t, query: q });
    for (const t of standalone.list()) out.push({ task: t });
    return out;
  };
  const find = (taskId: string): { task: SqlTask; query?: ReturnType<QueryManager['get']> } | undefined => {
    const queryId = taskId.split('.')[0];
    const q = manager.get(queryId);
    const t = q?.execution?.tasks.find((x) => x.taskId === taskId);
    if (t) return { task: t, query: q };
    const s = standalone.get(taskId);
    return s ? { task: s } : undefined;
  };
  const require = (taskId: string): { task: SqlTask; query?: ReturnType<QueryManager['get']> } => {
    const found = find(taskId);
    if (!found) throw new HttpError(404, text(404, `Task ${taskId} not found`));
    return found;
  };

  // Standalone tasks (POST /v1/task) belong to no query: internal callers alone see them.
  const visible = (req: Parameters<typeof mayAccessQuery>[1], query: ReturnType<QueryManager['get']>): boolean =>
    query ? mayAccessQuery(security, req, query, 'view') : !security?.authentication || security.principalOf(req).roles.includes('admin');

  router.add('GET', '/v1/task', (req) => json(200, allTasks().filter(({ query }) => visible(req, query)).map(({ task, query }) => taskInfo(task, req.baseUrl, query))));

  router.add('GET', '/v1/task/:taskId', (req) => {
    const { task, query } = require(req.params.taskId);
    if (!visible(req, query)) return text(404, `Task ${req.params.taskId} not found`);
    return json(200, taskInfo(task, req.baseUrl, query));
  });

  internal.add('DELETE', '/v1/task/:taskId', (req) => {
    const { task, query } = require(req.params.taskId);
    const abort = req.query.get('abort') !== 'false';
    if (!task.done) {
      if (query) {
        // As in Trino, a task ending while its query runs fails the query (never a silently short result).
        query.execution?.cancel(abort ? 'ABORTED' : 'CANCELED');
        query.fail(new EngineError('GENERIC_INTERNAL_ERROR', `A task is in the ${abort ? 'ABORTED' : 'CANCELED'} state but the query is still running: ${task.taskId}`));
      } else standalone.cancel(task.taskId);
    }
    return json(200, taskInfo(task, req.baseUrl, query));
  });

  internal.add('POST', '/v1/task/:taskId', (req) => {
    const taskId = req.params.taskId;
    if (!/^[A-Za-z0-9_.-]{1,200}$/u.test(taskId)) return text(400, 'Invalid task id');
    if (find(taskId)) return text(409, `Task ${taskId} already exists`);
    let body: unknown;
    try {
      body = JSON.parse(req.body.toString('utf8'));
    } catch {
      return text(400, 'Malformed JSON in task request');
    }
    const parsed = taskRequestSchema.safeParse(body);
    if (!parsed.success) return json(400, { error: 'Invalid task request', issues: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) });
    try {
      const task = standalone.create(taskId, parsed.data.fragment as unknown as FragmentSpec, parsed.data.table);
      return json(200, taskInfo(task, req.baseUrl));
    } catch (e) {
      return json(400, { error: (e as Error).message });
    }
  });

  const results = async (taskId: string, bufferId: string, tokenText: string, req: Parameters<Parameters<RouteRegistry['add']>[2]>[0]): Promise<HttpReply> => {
    const { task, query } = require(taskId);
    if (bufferId !== task.outputBuffer.bufferId) return text(404, `Output buffer ${bufferId} not found`);
    if (!/^\d{1,15}$/u.test(tokenText)) return text(400, 'Invalid token');
    const token = Number(tokenText);
    let maxBytes = DEFAULT_MAX_RESULT_BYTES;
    const maxSize = sessionHeader(req.headers, 'max-size');
    if (maxSize) {
      try {
        maxBytes = parseDataSize(maxSize);
      } catch {
        return text(400, `Invalid max size: ${maxSize}`);
      }
    }
    let maxWait = 1000;
    const wait = sessionHeader(req.headers, 'max-wait');
    if (wait) {
      try {
        maxWait = Math.min(10_000, parseDuration(wait));
      } catch {
        return text(400, `Invalid max wait: ${wait}`);
      }
    }
    // A query's own tasks are consumed in process (exchange, statement protocol): an HTTP reader only
    // observes their pages, or it would acknowledge pages the query has not read yet.
    const take = (): ReturnType<typeof task.outputBuffer.read> => (query ? task.outputBuffer.peek(token, maxBytes) : task.outputBuffer.read(token, maxBytes));
    let read = take();
    if (read.pages.length === 0 && !read.complete && maxWait > 0) {
      await task.outputBuffer.waitForChange(maxWait, req.signal);
      read = take();
    }
    if (!query) task.outputBuffer.pagesSent += read.pages.length;
    const p = headerPrefixOf(req.headers);
    const headers: Record<string, string> = {
      [`${p}Task-Instance-Id`]: task.taskInstanceId,
      [`${p}Page-Sequence-Id`]: String(read.token),
      [`${p}Page-End-Sequence-Id`]: String(read.nextToken),
      [`${p}Buffer-Complete`]: String(read.complete),
    };
    if (read.pages.length === 0) return { status: 204, headers };
    const types = task.fragment.outputTypes;
    const names = query?.names && task.stageId === 0 ? query.names : types.map((_, i) => `_col${i}`);
    return {
      status: 200,
      headers: { ...headers, 'Content-Type': 'application/vnd.apache.arrow.stream', 'X-Engine-Types': types.map(typeDisplayName).join(',') },
      body: pagesToIpc(read.pages, names, types),
    };
  };

  internal.add('GET', '/v1/task/:taskId/results/:bufferId/:token', (req) => results(req.params.taskId, req.params.bufferId, req.params.token, req));

  const ownedByQuery = (taskId: string, query: ReturnType<QueryManager['get']>): HttpReply | undefined =>
    query ? text(409, `Task ${taskId} belongs to query ${query.id}, whose coordinator consumes its output`) : undefined;

  internal.add('GET', '/v1/task/:taskId/results/:bufferId/:token/acknowledge', (req) => {
    const { task, query } = require(req.params.taskId);
    const owned = ownedByQuery(task.taskId, query);
    if (owned) return owned;
    if (!/^\d{1,15}$/u.test(req.params.token)) return text(400, 'Invalid token');
    task.outputBuffer.acknowledge(Number(req.params.token));
    return noContent();
  });

  internal.add('DELETE', '/v1/task/:taskId/results/:bufferId', (req) => {
    const { task, query } = require(req.params.taskId);
    if (req.params.bufferId !== task.outputBuffer.bufferId) return text(404, `Output buffer ${req.params.bufferId} not found`);
    const owned = ownedByQuery(task.taskId, query);
    if (owned) return owned;
    task.outputBuffer.abort();
    return noContent();
  });
}
