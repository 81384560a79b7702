// Routes requests to handlers through a segment trie: one walk per request, whatever the number of
// routes. Patterns are literal segments, `:name` parameters and a final `*rest`. At each node a
// literal child is tried before a parameter, and a parameter before `*rest`, so `/v1/node/failed`
// wins over `/v1/node/:id` whichever was registered first.
//
// Replies the router makes itself (all JSON, `{"error": "<reason phrase>"}`):
//   404 Not Found          no pattern matches the path
//   405 Method Not Allowed a pattern matches under other methods; `Allow` lists them
//   400 Bad Request        a parameter is not valid percent-encoding
// HEAD runs the GET handler when no HEAD handler is registered (the server drops the body and
// keeps its length); OPTIONS answers 204 with `Allow` unless an OPTIONS handler is registered, and
// `OPTIONS *` (the server as a whole) answers 204 with every method any route takes.
// Runs of slashes in a path count as one (`//admin/serverinfo` is `/admin/serverinfo`), as
// Keycloak's server normalizes them: some clients join a base URL ending in `/` with a path.
import { HttpError, json, type Handler, type HttpReply, type HttpRequest, type RouteRegistry } from './types.js';

/** A request as the server builds it; routing sets `params` on it. */
export type UnroutedRequest = Omit<HttpRequest, 'params'> & { params?: Readonly<Record<string, string>> };

export type RouteMatch =
  | { readonly kind: 'found'; readonly handler: Handler; readonly params: Record<string, string>; readonly pattern: string }
  | { readonly kind: 'method-not-allowed'; readonly allow: readonly string[] }
  | { readonly kind: 'not-found' };

interface Route {
  readonly pattern: string;
  readonly handler: Handler;
  /** Parameter names in pattern order; the last one is the `*rest` name when `rest` is set. */
  readonly paramNames: readonly string[];
}

class TrieNode {
  readonly literals = new Map<string, TrieNode>();
  param: TrieNode | undefined;
  /** Handlers for a `*rest` tail at this depth, by method. */
  readonly rest = new Map<string, Route>();
  /** Handlers for paths ending exactly here, by method. */
  readonly routes = new Map<string, Route>();
}

const METHOD_PATTERN = /^[A-Z]+$/;

export class Router implements RouteRegistry {
  private readonly root = new TrieNode();
  private readonly registered: Array<{ method: string; pattern: string }> = [];

  add(method: string, pattern: string, handler: Handler): void {
    const verb = method.toUpperCase();
    if (!METHOD_PATTERN.test(verb)) throw new Error(`invalid HTTP method '${method}'`);
    if (!pattern.startsWith('/')) throw new Error(`route pattern must start with '/': '${pattern}'`);
    const segments = splitPath(pattern);
    const paramNames: string[] = [];
    let node = this.root;
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i]!;
      if (segment.startsWith('*')) {
        if (i !== segments.length - 1) throw new Error(`'*rest' must be the last segment: '${pattern}'`);
        paramNames.push(nameOf(segment, pattern));
        addRoute(node.rest, verb, { pattern, handler, paramNames }, pattern);
        this.registered.push({ method: verb, pattern });
        return;
      }
      if (segment.startsWith(':')) {
        paramNames.push(nameOf(segment, pattern));
        node = node.param ??= new TrieNode();
      } else {
        let child = node.literals.get(segment);
        if (!child) node.literals.set(segment, (child = new TrieNode()));
        node = child;
      }
    }
    if (new Set(paramNames).size !== paramNames.length) throw new Error(`duplicate parameter name in '${pattern}'`);
    addRoute(node.routes, verb, { pattern, handler, paramNames }, pattern);
    this.registered.push({ method: verb, pattern });
  }

  /** The methods any route takes (with HEAD and OPTIONS), for `OPTIONS *`. */
  private serverMethods(): string {
    const allow = new Set(this.registered.map((r) => r.method));
    if (allow.has('GET')) allow.add('HEAD');
    allow.add('OPTIONS');
    return [...allow].sort().join(', ');
  }

  /** Every registered (method, pattern), in registration order. */
  routes(): ReadonlyArray<{ readonly method: string; readonly pattern: string }> {
    return this.registered;
  }

  /**
   * Finds the handler for `method` and the raw (still percent-encoded) `path`. HEAD falls back to
   * GET. Throws HttpError 400 when a matched parameter is not valid percent-encoding.
   */
  match(method: string, rawPath: string): RouteMatch {
    const verb = method.toUpperCase();
    const path = rawPath.includes('//') ? rawPath.replace(/\/{2,}/g, '/') : rawPath;
    const segments = new PathSegments(path);
    // The common case first: the first route in precedence order that takes this method.
    const values: string[] = [];
    let route: Route | undefined;
    if (walk(this.root, segments, segments.first, values, (routes) => (route = routeFor(routes, verb)) !== undefined) && route) {
      return { kind: 'found', handler: route.handler, params: bindParams(route.paramNames, values), pattern: route.pattern };
    }
    // No route takes this method: the path is unknown (404), or known under other methods (405).
    const tables: Array<Map<string, Route>> = [];
    walk(this.root, segments, segments.first, [], (routes) => (tables.push(routes), false));
    if (tables.length === 0) return { kind: 'not-found' };
    return { kind: 'method-not-allowed', allow: allowedMethods(tables) };
  }

  /**
   * Routes and runs one request; the reply for unknown paths and methods is made here. A handler
   * that answers at once is answered at once (no promise): the server then writes its reply
   * within the read that brought the request. May throw (HttpError for a malformed path).
   */
  dispatch(request: UnroutedRequest): HttpReply | Promise<HttpReply> {
    if (request.path === '*') return { status: 204, headers: { Allow: this.serverMethods() } };
    const found = this.match(request.method, request.path);
    if (found.kind === 'found') {
      // Set in place, not copied: the server's request reads its query and peer lazily.
      request.params = found.params;
      return found.handler(request as HttpRequest);
    }
    if (found.kind === 'not-found') return json(404, { error: 'Not Found' });
    if (request.method === 'OPTIONS') return { status: 204, headers: { Allow: found.allow.join(', ') } };
    return json(405, { error: 'Method Not Allowed' }, { Allow: found.allow.join(', ') });
  }
}

/** `/a/b/` → ['a', 'b']: the leading slash is dropped, and so is one trailing slash (`/` itself is []). */
function splitPath(path: string): string[] {
  const trimmed = path.endsWith('/') ? path.slice(1, -1) : path.slice(1);
  return trimmed === '' ? [] : trimmed.split('/');
}

/**
 * A request path's segments as splitPath cuts them, read in place: a segment starts at an offset
 * and ends at the next `/` or at `end`; `first` is past `end` when there are none. Routing every
 * request through split() and its array was 3% of the server thread under a stream of statements.
 */
class PathSegments {
  /** Where the segments end: before one trailing slash. */
  readonly end: number;
  /** Offset of the first segment; `end + 1` (done) when the path has none. */
  readonly first: number;

  constructor(readonly path: string) {
    this.end = path.length > 1 && path.charCodeAt(path.length - 1) === 0x2f ? path.length - 1 : path.length;
    this.first = this.end > 1 ? 1 : this.end + 1;
  }

  /** Whether `at` is past the last segment. */
  done(at: number): boolean {
    return at > this.end;
  }

  /** Where the segment at `at` ends (its `/` or `end`). */
  segmentEnd(at: number): number {
    const slash = this.path.indexOf('/', at);
    return slash < 0 || slash > this.end ? this.end : slash;
  }
}

function nameOf(segment: string, pattern: string): string {
  const name = segment.slice(1);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`invalid parameter name '${segment}' in '${pattern}'`);
  return name;
}

function addRoute(table: Map<string, Route>, method: string, route: Route, pattern: string): void {
  const existing = table.get(method);
  if (existing) throw new Error(`${method} ${pattern} conflicts with ${method} ${existing.pattern}`);
  table.set(method, route);
}

function routeFor(routes: Map<string, Route>, verb: string): Route | undefined {
  return routes.get(verb) ?? (verb === 'HEAD' ? routes.get('GET') : undefined);
}

/**
 * Depth-first walk in precedence order (literal, parameter, rest) over the route tables whose
 * pattern matches the path. Stops as soon as `visit` returns true, with that table's parameter
 * values in `values`; returns whether it stopped.
 */
function walk(node: TrieNode, segments: PathSegments, at: number, values: string[], visit: (routes: Map<string, Route>) => boolean): boolean {
  const done = segments.done(at);
  if (done) {
    if (node.routes.size > 0 && visit(node.routes)) return true;
  } else {
    const end = segments.segmentEnd(at);
    const segment = segments.path.slice(at, end);
    const literal = node.literals.get(segment);
    if (literal && walk(literal, segments, end + 1, values, visit)) return true;
    if (node.param && segment !== '') {
      values.push(segment);
      if (walk(node.param, segments, end + 1, values, visit)) return true;
      values.pop();
    }
  }
  // `*rest` matches one or more remaining segments.
  if (node.rest.size > 0 && !done) {
    values.push(segments.path.slice(at, segments.end));
    if (visit(node.rest)) return true;
    values.pop();
  }
  return false;
}

function bindParams(names: readonly string[], values: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (let i = 0; i < names.length; i++) {
    const raw = values[i]!;
    try {
      params[names[i]!] = raw.includes('%') ? decodeURIComponent(raw) : raw;
    } catch {
      throw new HttpError(400, json(400, { error: 'Bad Request', message: `malformed percent-encoding in path: '${raw}'` }));
    }
  }
  return params;
}

function allowedMethods(tables: ReadonlyArray<Map<string, Route>>): string[] {
  const allow = new Set<string>();
  for (const table of tables) for (const method of table.keys()) allow.add(method);
  if (allow.has('GET')) allow.add('HEAD');
  allow.add('OPTIONS');
  return [...allow].sort();
}
