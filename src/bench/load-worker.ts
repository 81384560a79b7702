// The load generator, in a worker thread so it runs beside the server's event loop rather than on
// it. autocannon drives N keep-alive connections; for the statement protocol each connection
// POSTs the statement and then follows nextUri (a request sequence whose GET steps end it by
// returning no request once the answer has no nextUri). Per-query latency is measured here, from
// the POST to the last answer.
import { parentPort } from 'node:worker_threads';

export type LoadScenario =
  | { readonly kind: 'plain'; readonly name: string; readonly url: string; readonly connections: number; readonly durationSeconds: number }
  | {
      readonly kind: 'statement';
      readonly name: string;
      readonly url: string;
      readonly connections: number;
      readonly durationSeconds: number;
      readonly sql: string;
      readonly catalog: string;
      readonly schema: string;
      /** The Authorization header every request carries (a server with authentication on). */
      readonly authorization?: string;
      /** The session user (X-Trino-User); default `load`. With `authorization`, its user, as clients send it. */
      readonly user?: string;
    };

export interface LoadResult {
  readonly name: string;
  readonly connections: number;
  readonly seconds: number;
  /** HTTP requests (every POST and GET). */
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly requestP50Ms: number;
  readonly requestP99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
  /** Statement scenarios: complete POST + nextUri cycles. */
  readonly queries?: number;
  readonly queriesPerSecond?: number;
  readonly queryP50Ms?: number;
  readonly queryP99Ms?: number;
  readonly queryP999Ms?: number;
  /** The percentiles above leave out the queries started in the run's first this many seconds (settleMs). */
  readonly settleSeconds?: number;
  /** p99 over every query of the run, its start included. */
  readonly queryP99AllMs?: number;
  readonly failedQueries?: number;
  readonly abandonedQueries?: number;
  /** Statement scenarios: whether every connection built its polls itself (buildPollsDirectly) or some through autocannon. */
  readonly pollsBuiltBy?: 'load-worker' | 'autocannon';
}

interface AutocannonResult {
  duration: number;
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}

interface AcRequest {
  method?: string;
  path?: string;
  body?: string;
  headers?: Record<string, string>;
  setupRequest?: (req: AcRequest, context: Ctx) => AcRequest | null;
  onResponse?: (status: number, body: string, context: Ctx) => void;
}

/** Per connection: autocannon deep-clones its options for each connection, and one clone keeps
 *  the references its requests share, so an object all requests point at is that connection's. */
interface Conn {
  /** When this connection's current query was POSTed. */
  t0?: number;
}

/** Per query: autocannon starts every request sequence with a fresh context. */
interface Ctx {
  next?: string;
  conn?: Conn;
  polls?: number;
}

interface Autocannon {
  (opts: Record<string, unknown>): Promise<AutocannonResult>;
  /** Off the main thread autocannon returns raw histograms; this turns them into the usual summary. */
  aggregateResult(results: unknown[], opts: Record<string, unknown>): AutocannonResult;
}

/** Most GETs one statement may take before the connection gives up on it and starts a new one. */
const MAX_POLLS = 64;

/** How long a run's start is left out of its latency percentiles: 0.5 s, or a tenth of a short run. */
function settleMs(s: LoadScenario): number {
  return Math.min(500, 100 * s.durationSeconds);
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function run(s: LoadScenario): Promise<LoadResult> {
  const ac = ((await import('autocannon' as string)) as { default: Autocannon }).default;
  const autocannon = async (opts: Record<string, unknown>): Promise<AutocannonResult> => {
    const raw = await ac(opts);
    return raw.latency === undefined ? ac.aggregateResult([raw], opts) : raw;
  };
  const base = { url: s.url, connections: s.connections, duration: s.durationSeconds, pipelining: 1 };
  if (s.kind === 'plain') {
    const r = await autocannon(base);
    return summary(s, r);
  }
  // Latencies of the queries started once the run has settled: each run opens its connections
  // afresh, and for its first ~0.3 s every server, the bare uWS one too, answered at a third of
  // its later rate with several times the latency (per-50-ms windows of a run).
  const latencies: number[] = [];
  const allLatencies: number[] = [];
  const settledFrom = performance.now() + settleMs(s);
  let completed = 0;
  let failed = 0;
  let abandoned = 0;
  const onResponse = (status: number, body: string, ctx: Ctx): void => {
    ctx.next = undefined;
    if (status !== 200) {
      failed++;
      return;
    }
    // The answer's nextUri and error by their keys: the client shares the two cores with the
    // server, and JSON.parse and new URL per answer were a tenth of its time. A quote inside a
    // JSON string is escaped, so `"nextUri":"` in the text can only be the key itself.
    const next = body.indexOf('"nextUri":"');
    if (next >= 0) {
      if (ctx.polls === MAX_POLLS) {
        // autocannon starts over with the POST; its start time is unknown.
        abandoned++;
        if (ctx.conn !== undefined) ctx.conn.t0 = undefined;
        return;
      }
      const uri = body.slice(next + 11, body.indexOf('"', next + 11));
      ctx.next = uri.slice(uri.indexOf('/', uri.indexOf('//') + 2));
    } else if (body.includes('"error":{')) failed++;
    else {
      completed++;
      // A connection's first query was POSTed before any poll could note the time.
      const t0 = ctx.conn?.t0;
      if (t0 !== undefined) {
        const ms = performance.now() - t0;
        allLatencies.push(ms);
        if (t0 >= settledFrom) latencies.push(ms);
      }
    }
  };
  // The POST never changes, so autocannon builds its bytes once per connection (a request with a
  // setupRequest is rebuilt every time, merging all of autocannon's options into a new object: a
  // quarter of the client's CPU, and the client shares the two cores with the server). The query's
  // start is noted instead by the poll that ends the previous query: autocannon sends the POST
  // right after that poll returns no request, in the same turn.
  const conn: Conn = {};
  const post = {
    method: 'POST',
    path: '/v1/statement',
    body: s.sql,
    headers: { 'X-Trino-User': s.user ?? 'load', 'X-Trino-Catalog': s.catalog, 'X-Trino-Schema': s.schema, 'Content-Type': 'text/plain', ...(s.authorization ? { Authorization: s.authorization } : {}) },
    conn,
    onResponse,
  };
  /** The next poll's path, noting the query's progress; null when the query is done. */
  const nextPoll = (ctx: Ctx, c: Conn): string | null => {
    if (ctx.next === undefined) {
      c.t0 = performance.now();
      return null;
    }
    ctx.conn = c;
    ctx.polls = (ctx.polls ?? 0) + 1;
    return ctx.next;
  };
  const poll = {
    method: 'GET',
    conn,
    poll: true,
    setupRequest: (req: AcRequest & { conn: Conn }, ctx: Ctx): AcRequest | null => {
      const path = nextPoll(ctx, req.conn);
      if (path === null) return null;
      // req is autocannon's fresh merge of its options and this request: ours to change.
      req.path = path;
      req.body = undefined;
      req.headers = s.authorization ? { Authorization: s.authorization } : {};
      return req;
    },
    onResponse,
  };
  const host = new URL(s.url).host;
  let direct = true;
  const r = await autocannon({
    ...base,
    requests: [post, ...Array.from({ length: MAX_POLLS }, () => ({ ...poll }))],
    setupClient: (client: unknown) => {
      if (!buildPollsDirectly(client, nextPoll, host, s.authorization)) direct = false;
    },
  });
  latencies.sort((a, b) => a - b);
  allLatencies.sort((a, b) => a - b);
  return {
    ...summary(s, r),
    queries: completed,
    queriesPerSecond: completed / r.duration,
    queryP50Ms: percentile(latencies, 50),
    queryP99Ms: percentile(latencies, 99),
    queryP999Ms: percentile(latencies, 99.9),
    settleSeconds: settleMs(s) / 1000,
    queryP99AllMs: percentile(allLatencies, 99),
    failedQueries: failed,
    abandonedQueries: abandoned,
    pollsBuiltBy: direct ? 'load-worker' : 'autocannon',
  };
}

/** The parts of autocannon's per-connection request iterator (lib/requestIterator.js) used below. */
interface RequestIteratorInternals {
  requests: unknown[];
  currentRequest: { poll?: boolean; conn?: Conn; requestBuffer?: Buffer } | undefined;
  currentRequestIndex: number;
  context: Ctx;
  resetted: boolean;
  rebuildRequest(): unknown;
  nextRequest(): unknown;
}

/**
 * Makes a connection build its polls' bytes itself. autocannon rebuilds a request that has a
 * setupRequest hook before every send by merging all of its options into a new object and
 * joining the request's lines: a fifth of the client's CPU per query, on the two cores the server
 * needs too. A poll is one line and two fixed headers (the same bytes autocannon writes for it).
 * When the iterator does not have the expected shape (another autocannon), the polls keep
 * autocannon's own building through their setupRequest.
 */
function buildPollsDirectly(client: unknown, nextPoll: (ctx: Ctx, c: Conn) => string | null, host: string, authorization?: string): boolean {
  const it = (client as { requestIterator?: RequestIteratorInternals }).requestIterator;
  if (it === undefined || typeof it.rebuildRequest !== 'function' || typeof it.nextRequest !== 'function' || !Array.isArray(it.requests) || typeof it.currentRequestIndex !== 'number') return false;
  const own = it.rebuildRequest;
  const tail = ` HTTP/1.1\r\nHost: ${host}\r\n${authorization ? `Authorization: ${authorization}\r\n` : ''}Connection: keep-alive\r\n\r\n`;
  it.rebuildRequest = function rebuildPoll(this: RequestIteratorInternals): unknown {
    const req = this.currentRequest;
    if (req?.poll !== true || req.conn === undefined) return own.call(this);
    this.resetted = false;
    const path = nextPoll(this.context, req.conn);
    if (path === null) {
      // As autocannon does for a request that builds to nothing: start over with the first.
      this.currentRequestIndex = this.requests.length - 1;
      this.nextRequest();
      this.resetted = true;
      return null;
    }
    req.requestBuffer = Buffer.from(`GET ${path}${tail}`, 'latin1');
    return req.requestBuffer;
  };
  return true;
}

function summary(s: LoadScenario, r: AutocannonResult): LoadResult {
  return {
    name: s.name,
    connections: s.connections,
    seconds: r.duration,
    requests: r.requests.total,
    requestsPerSecond: r.requests.total / r.duration,
    requestP50Ms: r.latency.p50,
    requestP99Ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}

if (parentPort !== null) {
  // One scenario at a time, each message one run: the bench keeps this thread for all of its
  // scenarios, so that a scenario's warm-up also warms the client's own code (a fresh isolate
  // interprets autocannon for its first ~0.5 s, at half speed and with 10 ms latencies).
  const port = parentPort;
  port.on('message', (scenario: LoadScenario) => {
    run(scenario).then(
      (result) => port.postMessage({ ok: true, result }),
      (error: unknown) => port.postMessage({ ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    );
  });
}
