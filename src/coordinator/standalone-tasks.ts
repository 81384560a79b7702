// Tasks created directly with POST /v1/task/{taskId}: a fragment run over every split of a table,
// its output read from the task's buffer. They live until deleted or until an hour has passed.

import type { CatalogRegistry } from '../connectors/catalog.js';
import type { FragmentSpec } from '../exec/specs.js';
import { operatorOutputTypes } from '../exec/pipeline.js';
import type { SqlType } from '../data/types.js';
import { EngineError } from '../util/engine-error.js';
import { QueryExecution, type ExecutionContext } from './execution.js';
import type { SqlTask } from './task.js';

const TASK_TTL_MS = 60 * 60_000;

export class StandaloneTasks {
  private readonly executions = new Map<string, QueryExecution>();

  constructor(
    private readonly catalogs: CatalogRegistry,
    private readonly context: Omit<ExecutionContext, 'splitsFor'>,
  ) {}

  list(): SqlTask[] {
    this.expire();
    return [...this.executions.values()].map((e) => e.tasks[0]);
  }

  get(taskId: string): SqlTask | undefined {
    return this.executions.get(taskId)?.tasks[0];
  }

  cancel(taskId: string): void {
    this.executions.get(taskId)?.cancel('CANCELED');
  }

  create(taskId: string, requested: FragmentSpec, ref: { catalog: string; schema: string; table: string }): SqlTask {
    const connector = this.catalogs.get(ref.catalog);
    const table = connector?.getTable(ref.schema, ref.table);
    if (!connector || !table) throw new EngineError('TABLE_NOT_FOUND', `Table '${ref.catalog}.${ref.schema}.${ref.table}' does not exist`);
    if (requested.source.kind !== 'scan') throw new Error('a task request must scan a table');
    const columns = requested.source.columns;
    for (const c of columns) if (c >= table.columns.length) throw new Error(`column ${c} out of range for ${ref.catalog}.${ref.schema}.${ref.table}`);
    // Derive the types from the table instead of trusting the request.
    const inputTypes = columns.map((c) => table.columns[c].type);
    const outputTypes = requested.operators.reduce<SqlType[]>((types, op) => operatorOutputTypes(op, types), inputTypes);
    const fragment: FragmentSpec = {
      stageId: 0,
      source: { kind: 'scan', table: `${ref.catalog}.${ref.schema}.${ref.table}`, columns },
      inputTypes,
      operators: requested.operators,
      outputTypes,
      partitioning: 'source',
    };
    const stage = { stageId: 0, fragment, scan: { table }, children: [], builds: [] };
    const queryId = taskId.split('.')[0];
    const execution = new QueryExecution(
      queryId,
      { stages: [stage], names: outputTypes.map((_, i) => `_col${i}`), types: outputTypes },
      { ...this.context, splitsFor: () => connector.splits(table, 1 << 16) },
      () => undefined,
    );
    // The task keeps the id the client chose.
    Object.defineProperty(execution.tasks[0], 'taskId', { value: taskId });
    this.executions.set(taskId, execution);
    execution.startSources();
    return execution.tasks[0];
  }

  private expire(now = Date.now()): void {
    for (const [id, e] of this.executions) {
      const t = e.tasks[0];
      if (t.done && now - (t.endTime ?? now) > TASK_TTL_MS) this.executions.delete(id);
    }
  }
}
