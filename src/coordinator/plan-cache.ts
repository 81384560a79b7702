// Query plans by statement text and the session values planning reads (catalog, schema, disabled
// rules). A repeated statement skips analysis, optimization and fragmenting, which are most of a
// trivial statement's cost. Only plans that stay valid are kept: none that folded current_date or
// now() into a constant, and none over a table whose definition can change (memory tables; tpch,
// system and information_schema tables are fixed). Rows are read at execution time in every case.

import type { CatalogRegistry } from '../connectors/catalog.js';
import type { PlanDependencies } from '../sql/analyze.js';
import type { QueryPlan } from '../sql/fragment.js';

/** Distinct statements kept (least recently used dropped first). */
const DEFAULT_LIMIT = 512;

export interface PlanKey {
  readonly sql: string;
  readonly catalog: string | undefined;
  readonly schema: string | undefined;
  /** The raw disabled-rules session property (it changes the plan). */
  readonly disabledRules: string | undefined;
}

export class PlanCache {
  private readonly plans = new Map<string, QueryPlan>();
  /** The key get() last moved to the end (offer() appends keys after it, so it may be last no more). */
  private lastUsed: string | undefined;

  constructor(
    private readonly catalogs: CatalogRegistry,
    private readonly limit = DEFAULT_LIMIT,
  ) {}

  get size(): number {
    return this.plans.size;
  }

  get(key: PlanKey): QueryPlan | undefined {
    const k = keyText(key);
    const plan = this.plans.get(k);
    if (plan && k !== this.lastUsed) {
      // Most recently used last: eviction takes the first key. A statement repeated back to back
      // is last already (re-inserting it every time churned the Map: rehashes under load).
      this.plans.delete(k);
      this.plans.set(k, plan);
      this.lastUsed = k;
    }
    return plan;
  }

  /** Keeps `plan` when what it was planned from cannot change; returns whether it was kept. */
  offer(key: PlanKey, plan: QueryPlan, dependencies: PlanDependencies): boolean {
    if (dependencies.timeDependent) return false;
    for (const table of dependencies.tables) {
      if (!(this.catalogs.get(table.catalog)?.hasStableMetadata?.(table.schema) ?? false)) return false;
    }
    this.plans.set(keyText(key), plan);
    this.lastUsed = undefined;
    if (this.plans.size > this.limit) this.plans.delete(this.plans.keys().next().value as string);
    return true;
  }
}

function keyText(k: PlanKey): string {
  // NUL cannot occur in identifiers or property values the session accepts.
  return `${k.catalog ?? ''}\0${k.schema ?? ''}\0${k.disabledRules ?? ''}\0${k.sql}`;
}
