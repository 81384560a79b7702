// Test support: a real server on a free port (real worker pool, temp data dir), and a statement
// client that follows nextUri the way Trino clients do.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App } from '../../src/app.js';
import { defaultConfig, type Config } from '../../src/config.js';

export interface TestServer {
  readonly app: App;
  readonly baseUrl: string;
  readonly dataDir: string;
  close(): Promise<void>;
}

export async function startServer(overrides: Partial<Config> = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'analytics-test-'));
  // The engine's suites run with SQL authentication off (the session headers name the user);
  // authentication and access control have their own suite (coordinator-security.test.ts).
  const app = await createApp(defaultConfig({ port: 0, workers: 2, dataDir, authentication: false, ...overrides }));
  return {
    app,
    baseUrl: app.baseUrl,
    dataDir,
    close: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface StatementAnswer {
  id: string;
  infoUri: string;
  nextUri?: string;
  partialCancelUri?: string;
  columns?: { name: string; type: string; typeSignature: unknown }[];
  data?: unknown[][];
  stats: Record<string, unknown> & { state: string };
  error?: { message: string; errorCode: number; errorName: string; errorType: string; errorLocation?: { lineNumber: number; columnNumber: number } };
  updateType?: string;
  warnings: unknown[];
}

export interface QueryOutcome {
  id: string;
  columns: StatementAnswer['columns'];
  rows: unknown[][];
  error: StatementAnswer['error'];
  answers: StatementAnswer[];
  headers: Headers[];
}

/** POSTs a statement and follows nextUri to the end. */
export async function runQuery(baseUrl: string, sql: string, headers: Record<string, string> = {}): Promise<QueryOutcome> {
  const post = await fetch(`${baseUrl}/v1/statement`, {
    method: 'POST',
    body: sql,
    headers: { 'X-Engine-User': 'test', 'X-Engine-Catalog': 'tpch', 'X-Engine-Schema': 'tiny', ...headers },
  });
  if (post.status !== 200) throw new Error(`POST /v1/statement answered ${post.status}: ${await post.text()}`);
  let answer = (await post.json()) as StatementAnswer;
  const answers = [answer];
  const hdrs = [post.headers];
  const rows: unknown[][] = [];
  while (answer.nextUri) {
    const res = await fetch(answer.nextUri);
    if (res.status !== 200) throw new Error(`GET ${answer.nextUri} answered ${res.status}: ${await res.text()}`);
    answer = (await res.json()) as StatementAnswer;
    answers.push(answer);
    hdrs.push(res.headers);
    if (answer.data) rows.push(...answer.data);
  }
  return { id: answer.id, columns: answer.columns, rows, error: answer.error, answers, headers: hdrs };
}

/** runQuery for a statement that must succeed: a FAILED answer throws with its error name and message. */
export async function runQueryOk(baseUrl: string, sql: string, headers: Record<string, string> = {}): Promise<QueryOutcome> {
  const r = await runQuery(baseUrl, sql, headers);
  if (r.error) throw new Error(`${sql}: ${r.error.errorName}: ${r.error.message}`);
  return r;
}
