// Trino's JSON functions over JSON text: json_extract_scalar, json_extract, json_size,
// json_array_length, json_array_get, json_array_contains, is_json_scalar, json_parse and
// json_format. JSON values are varchar here (the engine has no json type): a JSON result is its
// compact text, as Trino writes it.
//
// The parser keeps each number's text as written (json_extract_scalar('{"a": 1.50}', '$.a') is
// '1.50', as Trino's Jackson token text), so it is written by hand rather than JSON.parse. Paths
// are Trino's JSONPath subset: `$`, then `.name`, `["name"]`, `['name']` or `[index]` steps.

import { EngineError } from '../../util/engine-error.js';

type JsonNode =
  | { readonly kind: 'object'; readonly entries: readonly (readonly [string, JsonNode])[] }
  | { readonly kind: 'array'; readonly items: readonly JsonNode[] }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'number'; readonly text: string }
  | { readonly kind: 'boolean'; readonly value: boolean }
  | { readonly kind: 'null' };

class JsonSyntaxError extends Error {}

/** The JSON value `text` holds, or undefined when it is not one JSON value. */
function parseJson(text: string): JsonNode | undefined {
  let at = 0;
  const fail = (): never => {
    throw new JsonSyntaxError();
  };
  const space = (): void => {
    while (at < text.length) {
      const c = text.charCodeAt(at);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      at++;
    }
  };
  const literal = (word: string): void => {
    if (text.startsWith(word, at)) at += word.length;
    else fail();
  };
  const string = (): string => {
    // The quoted string, escapes and all, decoded by JSON.parse once its end is found.
    const start = at;
    at++;
    for (;;) {
      if (at >= text.length) fail();
      const c = text.charCodeAt(at);
      if (c === 0x22) break;
      if (c < 0x20) fail();
      at += c === 0x5c ? 2 : 1;
    }
    at++;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const number = (): string => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at, at + 400));
    if (!match) fail();
    at += (match as RegExpExecArray)[0].length;
    return (match as RegExpExecArray)[0];
  };
  const value = (depth: number): JsonNode => {
    if (depth > 1000) fail();
    space();
    const c = text[at];
    if (c === '{') {
      at++;
      const entries: [string, JsonNode][] = [];
      space();
      if (text[at] === '}') {
        at++;
        return { kind: 'object', entries };
      }
      for (;;) {
        space();
        if (text[at] !== '"') fail();
        const key = string();
        space();
        if (text[at] !== ':') fail();
        at++;
        entries.push([key, value(depth + 1)]);
        space();
        if (text[at] === ',') at++;
        else if (text[at] === '}') {
          at++;
          return { kind: 'object', entries };
        } else fail();
      }
    }
    if (c === '[') {
      at++;
      const items: JsonNode[] = [];
      space();
      if (text[at] === ']') {
        at++;
        return { kind: 'array', items };
      }
      for (;;) {
        items.push(value(depth + 1));
        space();
        if (text[at] === ',') at++;
        else if (text[at] === ']') {
          at++;
          return { kind: 'array', items };
        } else fail();
      }
    }
    if (c === '"') return { kind: 'string', value: string() };
    if (c === 't') return literal('true'), { kind: 'boolean', value: true };
    if (c === 'f') return literal('false'), { kind: 'boolean', value: false };
    if (c === 'n') return literal('null'), { kind: 'null' };
    return { kind: 'number', text: number() };
  };
  try {
    const node = value(0);
    space();
    return at === text.length ? node : undefined;
  } catch (e) {
    if (e instanceof JsonSyntaxError || e instanceof SyntaxError) return undefined;
    throw e;
  }
}

/** Compact JSON text of a node (strings escaped as JSON.stringify does, numbers as written). */
function formatJson(node: JsonNode): string {
  switch (node.kind) {
    case 'object':
      return `{${node.entries.map(([k, v]) => `${JSON.stringify(k)}:${formatJson(v)}`).join(',')}}`;
    case 'array':
      return `[${node.items.map(formatJson).join(',')}]`;
    case 'string':
      return JSON.stringify(node.value);
    case 'number':
      return node.text;
    case 'boolean':
      return String(node.value);
    case 'null':
      return 'null';
  }
}

type PathStep = string | number;

const parsedPaths = new Map<string, readonly PathStep[]>();
const PATH_CACHE_LIMIT = 256;

/** A JSONPath's steps (member names and array indexes), parsed once per path text. */
function pathSteps(path: string): readonly PathStep[] {
  let steps = parsedPaths.get(path);
  if (steps) return steps;
  const invalid = (): never => {
    throw new EngineError('INVALID_FUNCTION_ARGUMENT', `Invalid JSON path: '${path}'`);
  };
  const out: PathStep[] = [];
  const p = path.trim();
  if (!p.startsWith('$')) invalid();
  let at = 1;
  while (at < p.length) {
    if (p[at] === '.') {
      const m = /^[^.[\]\s"']+/.exec(p.slice(at + 1));
      if (!m) invalid();
      out.push((m as RegExpExecArray)[0]);
      at += 1 + (m as RegExpExecArray)[0].length;
    } else if (p[at] === '[') {
      const rest = p.slice(at);
      const index = /^\[\s*(\d+)\s*\]/.exec(rest);
      const quoted = /^\[\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*\]/.exec(rest);
      if (index) {
        out.push(Number(index[1]));
        at += index[0].length;
      } else if (quoted) {
        const q = quoted[1] as string;
        out.push(q.startsWith('"') ? (JSON.parse(q) as string) : q.slice(1, -1).replace(/\\(.)/g, '$1'));
        at += quoted[0].length;
      } else invalid();
    } else invalid();
  }
  steps = out;
  if (parsedPaths.size >= PATH_CACHE_LIMIT) parsedPaths.clear();
  parsedPaths.set(path, steps);
  return steps;
}

/** The node at `path` in the JSON `text`; undefined when the text is not JSON or the path leads nowhere. */
function nodeAt(text: string, path: string): JsonNode | undefined {
  const steps = pathSteps(path);
  let node = parseJson(text);
  for (const step of steps) {
    if (node === undefined) return undefined;
    if (typeof step === 'number') node = node.kind === 'array' ? node.items[step] : undefined;
    else node = node.kind === 'object' ? node.entries.find(([k]) => k === step)?.[1] : undefined;
  }
  return node;
}

/** json_extract_scalar: the scalar at the path as text (strings unquoted); NULL for objects, arrays, JSON null and misses. */
export function jsonExtractScalar(text: string, path: string): string | null {
  const node = nodeAt(text, path);
  if (node === undefined) return null;
  switch (node.kind) {
    case 'string':
      return node.value;
    case 'number':
      return node.text;
    case 'boolean':
      return String(node.value);
    default:
      return null;
  }
}

/** json_extract: the JSON at the path, as compact text; NULL on a miss. */
export function jsonExtract(text: string, path: string): string | null {
  const node = nodeAt(text, path);
  return node === undefined ? null : formatJson(node);
}

/** json_size: members of an object, items of an array, 0 for a scalar; NULL on a miss. */
export function jsonSize(text: string, path: string): number | null {
  const node = nodeAt(text, path);
  if (node === undefined) return null;
  return node.kind === 'object' ? node.entries.length : node.kind === 'array' ? node.items.length : 0;
}

/** json_array_length: items of a JSON array; NULL for anything else. */
export function jsonArrayLength(text: string): number | null {
  const node = parseJson(text);
  return node?.kind === 'array' ? node.items.length : null;
}

/** json_array_get: the item at `index` (negative: from the end) as JSON text; NULL past either end. */
export function jsonArrayGet(text: string, index: number): string | null {
  const node = parseJson(text);
  if (node?.kind !== 'array') return null;
  const item = node.items[index < 0 ? node.items.length + index : index];
  return item === undefined ? null : formatJson(item);
}

/** json_array_contains: whether the array holds an item equal to `value` (same JSON kind); NULL when not an array. */
export function jsonArrayContains(text: string, value: string | number | boolean): boolean | null {
  const node = parseJson(text);
  if (node?.kind !== 'array') return null;
  return node.items.some((item) => {
    if (typeof value === 'boolean') return item.kind === 'boolean' && item.value === value;
    if (typeof value === 'number') return item.kind === 'number' && Number(item.text) === value;
    return item.kind === 'string' && item.value === value;
  });
}

function parsedOrFail(text: string, what: string): JsonNode {
  const node = parseJson(text);
  if (node === undefined) throw new EngineError('INVALID_FUNCTION_ARGUMENT', `${what}: '${text.length > 100 ? `${text.slice(0, 100)}…` : text}'`);
  return node;
}

/** is_json_scalar: whether the JSON is a number, string, boolean or null; invalid JSON fails. */
export function isJsonScalar(text: string): boolean {
  const node = parsedOrFail(text, 'Invalid JSON value');
  return node.kind !== 'object' && node.kind !== 'array';
}

/** json_parse: the JSON text, checked and made compact; invalid JSON fails. */
export function jsonParse(text: string): string {
  return formatJson(parsedOrFail(text, 'Cannot convert value to JSON'));
}
