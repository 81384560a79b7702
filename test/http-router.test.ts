import { describe, expect, it } from 'vitest';
import { Router, type UnroutedRequest } from '../src/http/router.js';
import { HttpError, json, text, type HttpReply } from '../src/http/types.js';

const ok = (name: string) => () => text(200, name);

function request(method: string, path: string): UnroutedRequest {
  return { method, path, query: new URLSearchParams(), headers: {}, body: Buffer.alloc(0), remoteAddress: '127.0.0.1', baseUrl: 'http://x', signal: new AbortController().signal };
}

describe('Router', () => {
  const router = new Router();
  router.add('GET', '/v1/node', ok('nodes'));
  router.add('GET', '/v1/node/:nodeId', ok('node'));
  router.add('GET', '/v1/node/failed', ok('failed'));
  router.add('GET', '/v1/statement/:queryId/:token', ok('poll'));
  router.add('DELETE', '/v1/statement/:queryId/:token', ok('cancel'));
  router.add('GET', '/static/*rest', ok('static'));
  router.add('POST', '/v1/statement', ok('submit'));
  router.add('GET', '/', ok('root'));

  it('matches literal segments before parameters, whatever the registration order', () => {
    const m = router.match('GET', '/v1/node/failed');
    expect(m.kind === 'found' && m.pattern).toBe('/v1/node/failed');
    const p = router.match('GET', '/v1/node/n1');
    expect(p.kind === 'found' && p.params).toEqual({ nodeId: 'n1' });
  });

  it('percent-decodes parameters and joins the *rest tail', () => {
    const m = router.match('GET', '/v1/statement/20260101_000000_00001_abcde/a%20b%2Fc');
    expect(m.kind === 'found' && m.params).toEqual({ queryId: '20260101_000000_00001_abcde', token: 'a b/c' });
    const r = router.match('GET', '/static/css/site%20x.css');
    expect(r.kind === 'found' && r.params).toEqual({ rest: 'css/site x.css' });
    expect(router.match('GET', '/static').kind).toBe('not-found');
  });

  it('ignores one trailing slash and matches the root', () => {
    expect(router.match('GET', '/v1/node/').kind).toBe('found');
    const root = router.match('GET', '/');
    expect(root.kind === 'found' && root.pattern).toBe('/');
  });

  it('cuts segments at every run of slashes (as Keycloak normalizes `//`), a *rest tail loses one trailing slash', () => {
    expect(router.match('GET', '/v1/node//').kind).toBe('found');
    expect(router.match('GET', '//v1//node').kind).toBe('found');
    expect(router.match('GET', '/v1/statement//1').kind).toBe('not-found');
    const r = router.match('GET', '/static/a//b/');
    expect(r.kind === 'found' && r.params).toEqual({ rest: 'a/b' });
    const root = router.match('GET', '//');
    expect(root.kind === 'found' && root.pattern).toBe('/');
    expect(router.match('GET', '').kind).toBe('found');
  });

  it('reports 405 with the allowed methods, and 404 for unknown paths', () => {
    expect(router.match('PUT', '/v1/statement/q/1')).toEqual({ kind: 'method-not-allowed', allow: ['DELETE', 'GET', 'HEAD', 'OPTIONS'] });
    expect(router.match('GET', '/v2/nothing')).toEqual({ kind: 'not-found' });
    expect(router.match('GET', '/v1/statement/q').kind).toBe('not-found');
  });

  it('falls back from HEAD to GET', () => {
    const m = router.match('HEAD', '/v1/node');
    expect(m.kind === 'found' && m.pattern).toBe('/v1/node');
  });

  it('dispatches: 404 and 405 as JSON, OPTIONS as 204 with Allow', async () => {
    const notFound = await router.dispatch(request('GET', '/nope'));
    expect(notFound.status).toBe(404);
    expect(JSON.parse(String(notFound.body))).toEqual({ error: 'Not Found' });
    const notAllowed = await router.dispatch(request('PATCH', '/v1/statement'));
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.headers?.Allow).toBe('OPTIONS, POST');
    const options: HttpReply = await router.dispatch(request('OPTIONS', '/v1/node'));
    expect(options).toEqual({ status: 204, headers: { Allow: 'GET, HEAD, OPTIONS' } });
    // `OPTIONS *`: the server as a whole, every method some route takes.
    const server: HttpReply = await router.dispatch(request('OPTIONS', '*'));
    expect(server.status).toBe(204);
    expect(server.headers?.Allow).toBe([...new Set([...router.routes().map((r) => r.method), 'HEAD', 'OPTIONS'])].sort().join(', '));
  });

  it('answers 400 for malformed percent-encoding in a parameter', () => {
    expect(() => router.match('GET', '/v1/node/%E0%A4%A')).toThrow(HttpError);
  });

  it('rejects conflicting and malformed patterns', () => {
    const r = new Router();
    r.add('GET', '/a/:x', () => json(200, {}));
    expect(() => r.add('GET', '/a/:y', () => json(200, {}))).toThrow(/conflicts/);
    expect(() => r.add('GET', 'a', () => json(200, {}))).toThrow(/start with/);
    expect(() => r.add('GET', '/a/*rest/b', () => json(200, {}))).toThrow(/last segment/);
    expect(() => r.add('GET', '/b/:x/:x', () => json(200, {}))).toThrow(/duplicate/);
    expect(() => r.add('GE T', '/c', () => json(200, {}))).toThrow(/method/);
    expect(r.routes()).toEqual([{ method: 'GET', pattern: '/a/:x' }]);
  });

  it('stays a trie walk with many routes', () => {
    const r = new Router();
    for (let i = 0; i < 5000; i++) r.add('GET', `/r${i}/:id/x`, ok(`r${i}`));
    const m = r.match('GET', '/r4999/7/x');
    expect(m.kind === 'found' && m.pattern).toBe('/r4999/:id/x');
  });
});
