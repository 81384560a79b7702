// The ceilings the statement-protocol load is compared with: uWebSockets.js servers on loopback,
// served from the same main thread our server uses, doing no query work.

interface UwsResponse {
  end(body: string): void;
  writeHeader(name: string, value: string): UwsResponse;
  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): void;
  onAborted(handler: () => void): void;
  cork(f: () => void): void;
}
interface UwsRequest {
  getHeader(name: string): string;
  getUrl(): string;
}
type UwsHandler = (res: UwsResponse, req: UwsRequest) => void;
interface UwsApp {
  get(pattern: string, handler: UwsHandler): UwsApp;
  post(pattern: string, handler: UwsHandler): UwsApp;
  listen(host: string, port: number, cb: (token: unknown) => void): UwsApp;
  close(): void;
}
interface UwsModule {
  App(): UwsApp;
  us_socket_local_port(token: unknown): number;
}

/**
 * A uWebSockets.js server on a free loopback port: `hello` answers every GET with "hello" (the
 * issue's ceiling); `statement-shaped` answers the statement protocol's two requests for SELECT 1
 * with fixed answers of the same fields and sizes as ours (QUEUED with a nextUri, then FINISHED
 * with the row): what the HTTP layer alone costs for this traffic, without any query work.
 */
export async function startBareServer(kind: 'hello' | 'statement-shaped' = 'hello'): Promise<{ url: string; close(): void }> {
  const uws = ((await import('@uwsjs/core')) as unknown as { default: UwsModule }).default;
  const app = uws.App();
  if (kind === 'hello') app.get('/*', (res) => res.end('hello'));
  else {
    let counter = 0;
    app.post('/v1/statement', (res, req) => {
      const base = `http://${req.getHeader('host')}`;
      res.onAborted(() => undefined);
      res.onData((_chunk, last) => {
        if (!last) return;
        const id = `20261122_000000_${String(counter++ % 100_000).padStart(5, '0')}_bare0`;
        res.cork(() => res.writeHeader('Content-Type', 'application/json').end(shapedQueuedAnswer(id, base)));
      });
    });
    app.get('/v1/statement/*', (res, req) => {
      const id = req.getUrl().split('/')[3] ?? '';
      res.writeHeader('Content-Type', 'application/json').end(shapedFinalAnswer(id, `http://${req.getHeader('host')}`));
    });
  }
  const port = await new Promise<number>((resolve, reject) =>
    app.listen('127.0.0.1', 0, (token) => (token ? resolve(uws.us_socket_local_port(token)) : reject(new Error('bare uWS: listen failed')))),
  );
  return { url: `http://127.0.0.1:${port}${kind === 'hello' ? '/' : ''}`, close: () => app.close() };
}

const SHAPED_COUNTS = '"nodes":1,"totalSplits":1,"queuedSplits":0,"runningSplits":0,"completedSplits":1,"cpuTimeMillis":0,"wallTimeMillis":0';

function shapedQueuedAnswer(id: string, base: string): string {
  return (
    `{"id":"${id}","infoUri":"${base}/v1/query/${id}","partialCancelUri":"${base}/v1/stage/${id}.0","nextUri":"${base}/v1/statement/${id}/1",` +
    `"stats":{"state":"QUEUED","queued":true,"scheduled":false,"nodes":0,"totalSplits":0,"queuedSplits":0,"runningSplits":0,"completedSplits":0,"cpuTimeMillis":0,"wallTimeMillis":0,` +
    `"queuedTimeMillis":0,"elapsedTimeMillis":0,"processedRows":0,"processedBytes":0,"physicalInputBytes":0,"peakMemoryBytes":0,"spilledBytes":0},"warnings":[]}`
  );
}

function shapedFinalAnswer(id: string, base: string): string {
  return (
    `{"id":"${id}","infoUri":"${base}/v1/query/${id}","columns":[{"name":"_col0","type":"integer","typeSignature":{"rawType":"integer","arguments":[]}}],"data":[[1]],` +
    `"stats":{"state":"FINISHED","queued":false,"scheduled":true,${SHAPED_COUNTS},"queuedTimeMillis":0,"elapsedTimeMillis":0,"processedRows":1,"processedBytes":0,` +
    `"physicalInputBytes":0,"peakMemoryBytes":4,"spilledBytes":0,"progressPercentage":100,"rootStage":{"stageId":"0","state":"FINISHED","done":true,${SHAPED_COUNTS},` +
    `"processedRows":1,"processedBytes":0,"physicalInputBytes":0,"failedTasks":0,"coordinatorOnly":false,"subStages":[]}},"warnings":[]}`
  );
}
