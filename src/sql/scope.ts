// Name resolution: the fields visible at a point of a query, each with the relation (alias) it
// comes from; an enclosing query's scope is reachable for correlated subqueries.

import type { SqlType } from '../data/types.js';
import { EngineError } from '../util/engine-error.js';
import { locateName } from './parse.js';

export interface ScopeField {
  readonly name: string;
  readonly relation: string | undefined;
  readonly type: SqlType;
  /** A JOIN ... USING column's other copy: reachable qualified only, not listed by an unqualified `*`. */
  readonly hidden?: boolean;
  /** A JOIN ... USING column: an unqualified `*` lists these first, by this rank. */
  readonly usingRank?: number;
}

export interface Resolved {
  readonly index: number;
  readonly type: SqlType;
  /** Found in the enclosing query's scope (a correlated reference). */
  readonly outer: boolean;
}

export class Scope {
  constructor(
    readonly fields: readonly ScopeField[],
    readonly outer?: Scope,
  ) {}

  private local(parts: readonly string[], sql: string): { index: number; type: SqlType } | undefined {
    const name = parts[parts.length - 1].toLowerCase();
    const qualifier = parts.length > 1 ? parts[parts.length - 2].toLowerCase() : undefined;
    const matches: number[] = [];
    this.fields.forEach((f, i) => {
      if (f.name === name && (qualifier === undefined ? f.hidden !== true : f.relation === qualifier)) matches.push(i);
    });
    if (matches.length > 1) throw new EngineError('AMBIGUOUS_NAME', `Column '${parts.join('.')}' is ambiguous`, locateName(sql, parts));
    return matches.length === 0 ? undefined : { index: matches[0], type: this.fields[matches[0]].type };
  }

  resolve(parts: readonly string[], sql: string): Resolved | undefined {
    const here = this.local(parts, sql);
    if (here) return { ...here, outer: false };
    const there = this.outer?.local(parts, sql);
    return there ? { ...there, outer: true } : undefined;
  }

  /** Whether a qualifier names a relation in this scope. */
  hasRelation(name: string): boolean {
    return this.fields.some((f) => f.relation === name);
  }
}
