import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeHealth, toFailureInfo } from '../src/coordinator/node-health.js';
import { registerNodeRoutes } from '../src/coordinator/node-resource.js';
import { Router } from '../src/http/router.js';
import { listen, type HttpServer } from '../src/http/server.js';

function manualClock(start = Date.UTC(2026, 10, 21, 10, 0, 0)): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe('NodeHealth', () => {
  it('starts clean: zero counters, ratio 0, no lastFailureInfo', () => {
    const clock = manualClock();
    const health = new NodeHealth({ clock: clock.now });
    clock.advance(1500);
    expect(health.snapshot('http://n:1')).toEqual({
      uri: 'http://n:1',
      recentRequests: 0,
      recentFailures: 0,
      recentSuccesses: 0,
      recentFailureRatio: 0,
      lastRequestTime: '2026-11-21T10:00:00.000Z',
      lastResponseTime: '2026-11-21T10:00:00.000Z',
      age: '1.50s',
      recentFailuresByType: {},
    });
    expect(health.isFailed()).toBe(false);
  });

  it('decays 1000 successes to about 367.9 after one minute', () => {
    const clock = manualClock();
    const health = new NodeHealth({ clock: clock.now });
    for (let i = 0; i < 1000; i++) {
      health.recordRequest();
      health.recordSuccess();
    }
    clock.advance(60_000);
    const record = health.snapshot('u');
    expect(record.recentSuccesses).toBeCloseTo(367.879, 2);
    expect(record.recentRequests).toBeCloseTo(367.879, 2);
    expect(record.recentFailureRatio).toBe(0);
    expect(record.age).toBe('1.00m');
  });

  it('records failures by type, the last failure, times and the ratio', () => {
    const clock = manualClock();
    const health = new NodeHealth({ clock: clock.now });
    for (let i = 0; i < 8; i++) {
      health.recordRequest();
      health.recordSuccess();
    }
    clock.advance(1000);
    health.recordRequest();
    health.recordFailure(new TypeError('bad thing'));
    clock.advance(1000);
    health.recordRequest();
    health.recordFailure(new AggregateError([new RangeError('inner')], 'outer'));
    const record = health.snapshot('u');
    expect(record.recentFailures).toBeCloseTo(2, 1);
    expect(record.recentFailureRatio).toBeCloseTo(0.2, 1);
    expect(Object.keys(record.recentFailuresByType).sort()).toEqual(['AggregateError', 'TypeError']);
    expect(record.lastFailureInfo).toMatchObject({ type: 'AggregateError', message: 'outer', suppressed: [{ type: 'RangeError', message: 'inner' }] });
    expect(record.lastFailureInfo!.stack.length).toBeGreaterThan(0);
    expect(record.lastRequestTime).toBe('2026-11-21T10:00:02.000Z');
    expect(record.lastResponseTime).toBe('2026-11-21T10:00:02.000Z');
    expect(health.isFailed()).toBe(true);
    clock.advance(10 * 60_000);
    for (let i = 0; i < 50; i++) {
      health.recordRequest();
      health.recordSuccess();
    }
    expect(health.isFailed()).toBe(false);
  });

  it('turns anything thrown into a FailureInfo', () => {
    expect(toFailureInfo('plain')).toEqual({ type: 'string', message: 'plain', stack: [], suppressed: [] });
    const info = toFailureInfo(new Error('x'));
    expect(info.type).toBe('Error');
    expect(info.stack[0]).not.toMatch(/^at /);
  });
});

describe('node resource over HTTP', () => {
  let server: HttpServer;
  let base: string;
  const health = new NodeHealth();

  beforeAll(async () => {
    const router = new Router();
    registerNodeRoutes(router, health, undefined, { version: '9.9.9', environment: 'test', nodeId: 'n1' });
    router.add('GET', '/fail', () => {
      throw new SyntaxError('broken');
    });
    server = await listen(router, { host: '127.0.0.1', port: 0, recorder: health });
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('GET /v1/node lists this node as text/javascript with Vary: Accept', async () => {
    const res = await fetch(`${base}/v1/node`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript');
    expect(res.headers.get('vary')).toBe('Accept');
    const nodes = (await res.json()) as Array<Record<string, unknown>>;
    expect(nodes).toHaveLength(1);
    const node = nodes[0]!;
    expect(node.uri).toBe(base);
    // The count decays continuously: one request reads a little under 1 a moment later.
    expect(node.recentRequests as number).toBeGreaterThan(0.9);
    expect(node.recentFailureRatio).toBe(0);
    expect(node.lastRequestTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(node.age).toMatch(/^\d+\.\d\d(ns|us|ms|s|m|h|d)$/);
    expect(node.recentFailuresByType).toEqual({});
    expect(node).not.toHaveProperty('lastFailureInfo');
  });

  it('GET /v1/node/failed is empty while healthy', async () => {
    const res = await fetch(`${base}/v1/node/failed`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([]);
  });

  it('shows failures from 5xx replies, and lists the node as failed when the ratio is high', async () => {
    for (let i = 0; i < 3; i++) expect((await fetch(`${base}/fail`)).status).toBe(500);
    const [node] = (await (await fetch(`${base}/v1/node`)).json()) as Array<Record<string, any>>;
    expect(node!.recentFailures).toBeGreaterThan(2.9);
    expect(node!.recentFailuresByType.SyntaxError).toBeGreaterThan(2.9);
    expect(node!.lastFailureInfo).toMatchObject({ type: 'SyntaxError', message: 'broken' });
    expect(Array.isArray(node!.lastFailureInfo.stack)).toBe(true);
    expect(node!.recentFailureRatio).toBeGreaterThan(0.1);
    const failed = (await (await fetch(`${base}/v1/node/failed`)).json()) as unknown[];
    expect(failed).toHaveLength(1);
  });

  it('GET /v1/info and GET/HEAD /v1/status', async () => {
    const info = await (await fetch(`${base}/v1/info`)).json();
    expect(info).toMatchObject({ nodeVersion: { version: '9.9.9' }, environment: 'test', coordinator: true, starting: false });
    expect(info.uptime).toMatch(/^\d+\.\d\d(ns|us|ms|s|m|h|d)$/);
    const status = await fetch(`${base}/v1/status`);
    expect(await status.json()).toMatchObject({ nodeId: 'n1', nodeVersion: { version: '9.9.9' }, coordinator: true, externalAddress: `127.0.0.1:${server.port}` });
    const head = await fetch(`${base}/v1/status`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});
