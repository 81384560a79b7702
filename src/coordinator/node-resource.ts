// The node resource and Trino's server-information endpoints:
//   GET /v1/node          this node's health record, as a one-element array (text/javascript, Vary: Accept)
//   GET /v1/node/failed   the same record when the node counts as failed, else []
//   GET /v1/info          {nodeVersion: {version}, environment, coordinator, starting, uptime}
//   GET|HEAD /v1/status   NodeStatus-like record (HEAD is what Trino's failure detector pings)
import os from 'node:os';
import type { HttpRequest, RouteRegistry } from '../http/types.js';
import { json } from '../http/types.js';
import { formatDuration } from '../util/wire-format.js';
import type { NodeHealth } from './node-health.js';

export interface NodeInfoOptions {
  readonly version: string;
  readonly environment: string;
  readonly nodeId: string;
}

export const DEFAULT_NODE_INFO: NodeInfoOptions = { version: '0.1.0', environment: 'production', nodeId: 'coordinator' };

/** The node's URI: fixed, computed when asked (e.g. once the port is known), or from the request's base URL. */
export type NodeUri = string | ((req: HttpRequest) => string);

const NODE_HEADERS = { 'Content-Type': 'text/javascript', Vary: 'Accept' };

export function registerNodeRoutes(
  router: RouteRegistry,
  health: NodeHealth,
  nodeUri: NodeUri = (req) => req.baseUrl,
  info: NodeInfoOptions = DEFAULT_NODE_INFO,
  /** Where the node records go (a guarded registry: they are not public, unlike /v1/info and /v1/status). */
  guarded: RouteRegistry = router,
): void {
  const uriOf = (req: HttpRequest): string => (typeof nodeUri === 'string' ? nodeUri : nodeUri(req));
  const uptime = (): string => formatDuration(Date.now() - health.startTime);

  guarded.add('GET', '/v1/node', (req) => json(200, [health.snapshot(uriOf(req))], NODE_HEADERS));

  guarded.add('GET', '/v1/node/failed', (req) => json(200, health.isFailed() ? [health.snapshot(uriOf(req))] : [], NODE_HEADERS));

  router.add('GET', '/v1/info', () =>
    json(200, { nodeVersion: { version: info.version }, environment: info.environment, coordinator: true, starting: false, uptime: uptime() }),
  );

  router.add('GET', '/v1/status', (req) => {
    const memory = process.memoryUsage();
    const cpus = os.availableParallelism();
    const address = new URL(uriOf(req)).host;
    return json(200, {
      nodeId: info.nodeId,
      nodeVersion: { version: info.version },
      environment: info.environment,
      coordinator: true,
      uptime: uptime(),
      externalAddress: address,
      internalAddress: address,
      processors: cpus,
      processCpuLoad: processCpuLoad(),
      systemCpuLoad: Math.min(1, os.loadavg()[0]! / cpus),
      heapUsed: memory.heapUsed,
      heapAvailable: memory.heapTotal,
      nonHeapUsed: memory.rss - memory.heapTotal,
    });
  });
}

let lastCpu = { usage: process.cpuUsage(), at: process.hrtime.bigint() };

/** Share of one machine's CPUs this process used since the previous call (0..1). */
function processCpuLoad(): number {
  const now = { usage: process.cpuUsage(), at: process.hrtime.bigint() };
  const cpuMicros = now.usage.user - lastCpu.usage.user + (now.usage.system - lastCpu.usage.system);
  const wallMicros = Number(now.at - lastCpu.at) / 1000;
  lastCpu = now;
  return wallMicros > 0 ? Math.min(1, cpuMicros / wallMicros / os.availableParallelism()) : 0;
}
