// A statement-protocol client as Trino's clients are: POST /v1/statement, then GET nextUri until
// it is gone. Times the whole cycle and keeps the rows (a benchmark's results are small).
// node:http over kept-alive connections, as Trino's own clients (OkHttp) keep theirs: fetch
// (undici) cost about 0.3 ms more per SELECT 1 cycle in this process, time billed to the server.

import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

interface Reply {
  readonly status: number;
  readonly body: string;
}

function request(method: string, url: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const sent = body === undefined ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) };
    const req = http.request(url, { method, agent, headers: sent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export interface StatementError {
  readonly message: string;
  readonly errorName: string;
  readonly errorCode: number;
}

interface StatementAnswer {
  readonly nextUri?: string;
  readonly data?: unknown[][];
  readonly error?: StatementError;
  readonly stats?: { readonly state?: string };
}

export interface StatementOutcome {
  readonly ms: number;
  readonly rows: unknown[][];
  readonly error: StatementError | undefined;
  /** True when the client gave up after the timeout (and cancelled the query). */
  readonly timedOut: boolean;
}

export interface Session {
  readonly catalog: string;
  readonly schema: string;
}

export async function runStatement(baseUrl: string, sql: string, session: Session, timeoutMs: number): Promise<StatementOutcome> {
  const t0 = performance.now();
  const headers = { 'X-Trino-User': 'bench', 'X-Trino-Source': 'npm-run-bench', 'X-Trino-Catalog': session.catalog, 'X-Trino-Schema': session.schema };
  const post = await request('POST', `${baseUrl}/v1/statement`, headers, sql);
  if (post.status !== 200) throw new Error(`POST /v1/statement answered ${post.status}: ${post.body}`);
  let answer = JSON.parse(post.body) as StatementAnswer;
  const rows: unknown[][] = [];
  while (answer.nextUri) {
    if (performance.now() - t0 > timeoutMs) {
      await request('DELETE', answer.nextUri, {}).catch(() => undefined);
      return { ms: performance.now() - t0, rows, error: undefined, timedOut: true };
    }
    const res = await request('GET', answer.nextUri, {});
    if (res.status !== 200) throw new Error(`GET ${answer.nextUri} answered ${res.status}: ${res.body}`);
    answer = JSON.parse(res.body) as StatementAnswer;
    if (answer.data) for (const row of answer.data) rows.push(row);
  }
  return { ms: performance.now() - t0, rows, error: answer.error, timedOut: false };
}
