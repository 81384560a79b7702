// Expression constructors, each rendering Trino SQL for our engine and the DuckDB equivalent.
// Known differences translated here:
//   - integer `a / b` truncates in Trino; DuckDB's `/` gives a double, its `//` truncates.
//   - count_if over no rows (or only NULLs) is 0 in Trino and NULL in DuckDB: count(CASE WHEN x THEN 1 END) there.
//   - `date + INTERVAL 'n' DAY`, `date_add('day', n, d)` and `date_trunc(unit, d)` give a DATE in
//     Trino and a TIMESTAMP in DuckDB: cast back to DATE there.
// Differences avoided by the generator rather than translated (documented in test/sql/README.md):
// double -> integer/decimal casts (Trino rounds half up, DuckDB half even / from the binary value),
// decimal division and avg(decimal) (DuckDB gives a double), substr from position 0, concat() with
// NULL (DuckDB skips NULLs; `||` agrees), division by zero (Trino fails, DuckDB gives NULL),
// double -> varchar casts (number formatting), row_number/lag/ROWS frames without a total order.

import type { Expr, Feature, Query, Ty } from './ast.js';

type Render = Expr['render'];

function node(t: Ty, kids: readonly Expr[], render: Render, extra: Partial<Expr> = {}): Expr {
  return { t, kids, render, ...extra };
}

/** A column reference. */
export const col = (ref: string, t: Ty): Expr => node(t, [], () => ref, { leaf: true });

/** A literal, written the same way for both engines. */
export const lit = (text: string, t: Ty): Expr => node(t, [], () => text, { leaf: true });

export function litOf(t: Ty, v: number | string | boolean | null): Expr {
  if (v === null) return lit(t === 'int' ? 'CAST(NULL AS INTEGER)' : t === 'dbl' ? 'CAST(NULL AS DOUBLE)' : t === 'dec' ? 'CAST(NULL AS DECIMAL(10,2))' : t === 'str' ? 'CAST(NULL AS VARCHAR)' : t === 'date' ? 'CAST(NULL AS DATE)' : 'CAST(NULL AS BOOLEAN)', t);
  switch (t) {
    case 'int':
      return lit(String(v), t);
    case 'dbl':
      return lit(`${Number(v).toExponential()}`.replace('e+', 'e'), t);
    case 'dec':
      return lit(Number(v).toFixed(2), t);
    case 'str':
      return lit(`'${String(v).replaceAll("'", "''")}'`, t);
    case 'date':
      return lit(`DATE '${String(v)}'`, t);
    case 'bool':
      return lit(v ? 'true' : 'false', t);
  }
}

/** The simplest literal of a type (the shrinker's last resort for an expression). */
export function simplest(t: Ty): Expr {
  return litOf(t, t === 'str' ? 'a' : t === 'date' ? '1995-01-01' : t === 'bool' ? true : 1);
}

export const bin = (op: string, a: Expr, b: Expr, t: Ty): Expr => node(t, [a, b], (k) => `(${k[0]} ${op} ${k[1]})`);
export const un = (pre: string, a: Expr, t: Ty, post = ''): Expr => node(t, [a], (k) => `(${pre}${k[0]}${post})`);
export const call = (name: string, args: readonly Expr[], t: Ty, extra: Partial<Expr> = {}): Expr => node(t, args, (k) => `${name}(${k.join(', ')})`, extra);
export const raw = (t: Ty, kids: readonly Expr[], render: Render, extra: Partial<Expr> = {}): Expr => node(t, kids, render, extra);

/** Integer division by a non-zero literal: truncating in both engines. */
export const intDiv = (a: Expr, b: Expr): Expr => node('int', [a, b], (k, d) => (d === 'duck' ? `(${k[0]} // ${k[1]})` : `(${k[0]} / ${k[1]})`));

export const addDays = (a: Expr, days: number): Expr =>
  node('date', [a], (k, d) => (d === 'duck' ? `CAST(${k[0]} + INTERVAL '${days}' DAY AS DATE)` : `(${k[0]} + INTERVAL '${days}' DAY)`));

export const dateAdd = (unit: 'day' | 'month' | 'year', n: number, a: Expr): Expr =>
  node('date', [a], (k, d) => (d === 'duck' ? `CAST(${k[0]} + INTERVAL '${n}' ${unit.toUpperCase()} AS DATE)` : `date_add('${unit}', ${n}, ${k[0]})`));

export const dateTrunc = (unit: 'month' | 'year' | 'quarter', a: Expr): Expr =>
  node('date', [a], (k, d) => (d === 'duck' ? `CAST(date_trunc('${unit}', ${k[0]}) AS DATE)` : `date_trunc('${unit}', ${k[0]})`));

export const cast = (a: Expr, sqlType: string, t: Ty, features: readonly Feature[] = []): Expr => node(t, [a], (k) => `CAST(${k[0]} AS ${sqlType})`, { features });

export function caseWhen(whens: readonly [Expr, Expr][], otherwise: Expr | undefined, t: Ty): Expr {
  const kids = [...whens.flat(), ...(otherwise ? [otherwise] : [])];
  return node(t, kids, (k) => {
    let s = 'CASE';
    for (let i = 0; i < whens.length; i++) s += ` WHEN ${k[2 * i]} THEN ${k[2 * i + 1]}`;
    if (otherwise) s += ` ELSE ${k[k.length - 1]}`;
    return `${s} END`;
  });
}

/** CASE x WHEN v THEN r ... */
export function simpleCase(subject: Expr, whens: readonly [Expr, Expr][], otherwise: Expr | undefined, t: Ty): Expr {
  const kids = [subject, ...whens.flat(), ...(otherwise ? [otherwise] : [])];
  return node(t, kids, (k) => {
    let s = `CASE ${k[0]}`;
    for (let i = 0; i < whens.length; i++) s += ` WHEN ${k[1 + 2 * i]} THEN ${k[2 + 2 * i]}`;
    if (otherwise) s += ` ELSE ${k[k.length - 1]}`;
    return `${s} END`;
  });
}

export const inList = (a: Expr, list: readonly Expr[], not: boolean): Expr =>
  node('bool', [a, ...list], (k) => `(${k[0]} ${not ? 'NOT IN' : 'IN'} (${k.slice(1).join(', ')}))`);

export const between = (a: Expr, lo: Expr, hi: Expr, not: boolean): Expr =>
  node('bool', [a, lo, hi], (k) => `(${k[0]} ${not ? 'NOT BETWEEN' : 'BETWEEN'} ${k[1]} AND ${k[2]})`);

export const like = (a: Expr, pattern: string, not: boolean): Expr =>
  node('bool', [a], (k) => `(${k[0]} ${not ? 'NOT LIKE' : 'LIKE'} '${pattern.replaceAll("'", "''")}')`);

/** An aggregate call: name(DISTINCT? args) FILTER (WHERE f)?; the filter is the last kid when present. */
export function agg(name: string, args: readonly Expr[], t: Ty, o: { distinct?: boolean; filter?: Expr; star?: boolean } = {}): Expr {
  const kids = o.filter ? [...args, o.filter] : args;
  return node(t, kids, (k) => {
    const a = o.filter ? k.slice(0, -1) : k;
    const inner = o.star ? '*' : `${o.distinct ? 'DISTINCT ' : ''}${a.join(', ')}`;
    return `${name}(${inner})${o.filter ? ` FILTER (WHERE ${k[k.length - 1]})` : ''}`;
  }, { agg: true });
}

/** count_if(x); DuckDB's gives NULL where Trino's gives 0. */
export function countIf(x: Expr): Expr {
  return node('int', [x], (k, d) => (d === 'duck' ? `count(CASE WHEN ${k[0]} THEN 1 END)` : `count_if(${k[0]})`), { agg: true });
}

export interface WindowSpec {
  readonly partition: readonly Expr[];
  readonly order: readonly { e: Expr; desc: boolean; nullsFirst: boolean }[];
  readonly frame?: string;
}

/** A window function call; kids are the arguments, then the partition keys, then the order keys. */
export function windowCall(name: string, args: readonly Expr[], t: Ty, w: WindowSpec, features: readonly Feature[] = [], star = false, totalOrder = false): Expr {
  const kids = [...args, ...w.partition, ...w.order.map((o) => o.e)];
  return node(t, kids, (k) => {
    const a = k.slice(0, args.length);
    const p = k.slice(args.length, args.length + w.partition.length);
    const o = k.slice(args.length + w.partition.length);
    const parts: string[] = [];
    if (p.length) parts.push(`PARTITION BY ${p.join(', ')}`);
    if (o.length) parts.push(`ORDER BY ${o.map((x, i) => `${x} ${w.order[i].desc ? 'DESC' : 'ASC'} NULLS ${w.order[i].nullsFirst ? 'FIRST' : 'LAST'}`).join(', ')}`);
    if (w.frame) parts.push(w.frame);
    return `${name}(${star ? '*' : a.join(', ')}) OVER (${parts.join(' ')})`;
  }, { win: true, features, totalOrder });
}

/** A subquery used as a value, EXISTS, or the right side of IN. */
export function subquery(kind: 'scalar' | 'exists' | 'not-exists' | 'in' | 'not-in', q: Query, t: Ty, left?: Expr, features: readonly Feature[] = []): Expr {
  return node(t, left ? [left] : [], (k, _d, sub) => {
    switch (kind) {
      case 'scalar':
        return `(${sub})`;
      case 'exists':
        return `EXISTS (${sub})`;
      case 'not-exists':
        return `(NOT EXISTS (${sub}))`;
      case 'in':
        return `(${k[0]} IN (${sub}))`;
      case 'not-in':
        return `(${k[0]} NOT IN (${sub}))`;
    }
  }, { sub: q, features });
}
