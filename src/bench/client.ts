// A statement-protocol client as Trino's clients are: POST /v1/statement, then GET nextUri until
// it is gone. Times the whole cycle and keeps the rows (a benchmark's results are small).

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
  const post = await fetch(`${baseUrl}/v1/statement`, {
    method: 'POST',
    body: sql,
    headers: { 'X-Trino-User': 'bench', 'X-Trino-Source': 'npm-run-bench', 'X-Trino-Catalog': session.catalog, 'X-Trino-Schema': session.schema },
  });
  if (post.status !== 200) throw new Error(`POST /v1/statement answered ${post.status}: ${await post.text()}`);
  let answer = (await post.json()) as StatementAnswer;
  const rows: unknown[][] = [];
  while (answer.nextUri) {
    if (performance.now() - t0 > timeoutMs) {
      await fetch(answer.nextUri, { method: 'DELETE' }).catch(() => undefined);
      return { ms: performance.now() - t0, rows, error: undefined, timedOut: true };
    }
    const res = await fetch(answer.nextUri);
    if (res.status !== 200) throw new Error(`GET ${answer.nextUri} answered ${res.status}: ${await res.text()}`);
    answer = (await res.json()) as StatementAnswer;
    if (answer.data) for (const row of answer.data) rows.push(row);
  }
  return { ms: performance.now() - t0, rows, error: answer.error, timedOut: false };
}
