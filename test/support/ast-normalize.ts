// Puts the old parser's tree (node-sql-parser + rewrites) and the new one's into one comparable
// form: drops what the analyzer never reads (locations, parentheses, collate, …), flattens AND/OR
// chains, and undoes the old rewrites' encodings (FILTER markers, percent_rank sentinels, …).

/* eslint-disable @typescript-eslint/no-explicit-any */
const DROPPED = new Set(['loc', 'collate', 'into', 'options', 'parentheses', 'parentheses_symbol', 'keyword', 'columnList', 'tableList', 'prefix', 'separator', 'consider_nulls', 'symbol']);

export function normalizeAst(x: any): any {
  if (Array.isArray(x)) return x.map(normalizeAst);
  if (x === null || typeof x !== 'object') return x;
  let node: any = { ...x };
  if (node.type === 'binary_expr' && (node.operator === 'AND' || node.operator === 'OR')) {
    const items: any[] = [];
    const flat = (n: any): void => {
      if (n?.type === 'binary_expr' && n.operator === node.operator) {
        flat(n.left);
        flat(n.right);
      } else items.push(normalizeAst(n));
    };
    flat(node);
    return { type: `${node.operator.toLowerCase()}_chain`, items };
  }
  if (node.type === 'function' && Array.isArray(node.name?.name)) {
    const name = node.name.name.map((p: any) => String(p.value).toLowerCase()).join('.');
    const args: any[] = node.args?.value ?? [];
    const last = args.at(-1);
    if (last?.type === 'function' && String(last.name?.name?.[0]?.value).toLowerCase() === 'filter_where__') {
      node.filter = { where: last.args.value[0] };
      node.args = { ...node.args, value: args.slice(0, -1) };
    }
    if (name === 'not' && args.length === 1) return normalizeAst({ type: 'unary_expr', operator: 'NOT', expr: args[0] });
    node.name = name;
    if (!node.args) node.args = { type: 'expr_list', value: [] };
  }
  if (node.type === 'window_func') {
    node.name = String(node.name).toLowerCase();
    const sentinel = node.name === 'ntile' ? Number(node.args?.value?.[0]?.value) : NaN;
    if (sentinel === -101 || sentinel === -102) {
      node.name = sentinel === -101 ? 'percent_rank' : 'cume_dist';
      delete node.args;
    }
  }
  if (node.type === 'extract' && node.args?.cast_type) {
    node.args = { field: node.args.field, source: { type: String(node.args.cast_type).toLowerCase(), value: node.args.source.value } };
  }
  if (node.type === 'bigint' && typeof node.value === 'string' && node.value.includes('.') && !/e/iu.test(node.value)) node.type = 'number';
  if (node.type === 'origin' && /^(current row|unbounded (preceding|following))$/iu.test(String(node.value))) node.value = String(node.value).toUpperCase();
  if (typeof node.nulls === 'string') node.nulls = node.nulls.toLowerCase();
  if (typeof node.set_op === 'string') node.set_op = node.set_op.toLowerCase().replace(/\s+distinct$/u, '');
  if (typeof node.join === 'string') node.join = node.join.replace(/\s+OUTER/u, '');
  if (node.type === 'select' && Array.isArray(node.from)) node.from = joinKeywords(node.from);
  const out: any = {};
  for (const [k, v] of Object.entries(node)) {
    if (DROPPED.has(k) || v === null || v === undefined) continue;
    if (Array.isArray(v) && v.length === 0 && k === 'suffix') continue;
    out[k] = normalizeAst(v);
  }
  return out;
}

/** The old tree's `t CROSS JOIN u` is t aliased CROSS, then u joined without a condition. */
function joinKeywords(from: any[]): any[] {
  return from.map((item, i) => {
    const keyword = (n: any): string => String(n?.as ?? '').toUpperCase();
    let read = item;
    if ((keyword(item) === 'CROSS' || keyword(item) === 'NATURAL') && from[i + 1]?.join) read = { ...read, as: null };
    const before = keyword(from[i - 1]);
    if (item.join && !item.on && !item.using && (before === 'CROSS' || before === 'NATURAL')) {
      read = { ...read, join: before === 'CROSS' ? 'CROSS JOIN' : `NATURAL ${String(item.join)}`, on: null };
    }
    return read;
  });
}

/** `type@offset` of every node with a location. */
export function locatedNodes(x: any, out = new Set<string>()): Set<string> {
  if (Array.isArray(x)) for (const i of x) locatedNodes(i, out);
  else if (x && typeof x === 'object') {
    if (x.loc?.start && typeof x.type === 'string') out.add(`${x.type}@${x.loc.start.offset}`);
    for (const [k, v] of Object.entries(x)) if (k !== 'loc') locatedNodes(v, out);
  }
  return out;
}

/** The path of the first difference between two normalized trees, or null. */
export function firstDifference(a: any, b: any, path = '$'): string | null {
  if (a === b) return null;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return `${path}: ${JSON.stringify(a)?.slice(0, 200)} vs ${JSON.stringify(b)?.slice(0, 200)}`;
  if (Array.isArray(a) !== Array.isArray(b)) return `${path}: array vs object`;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    const d = firstDifference(a[k], b[k], `${path}.${k}`);
    if (d) return d;
  }
  return null;
}
