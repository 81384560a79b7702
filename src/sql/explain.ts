// EXPLAIN text: the logical plan as an indented tree, or the distributed plan by fragment.

import { typeDisplayName } from '../data/types.js';
import type { FragmentSpec, OperatorSpec } from '../exec/specs.js';
import type { OperatorStats } from '../exec/metrics.js';
import { operatorTypeName } from '../exec/specs.js';
import type { Expr } from './ir.js';
import type { QueryPlan } from './fragment.js';
import { inputsOf, type Field, type PlanNode } from './plan.js';

export function formatExpr(e: Expr): string {
  switch (e.kind) {
    case 'column':
      return `#${e.index}`;
    case 'outerRef':
      return `outer#${e.index}`;
    case 'literal':
      return e.value === null ? 'null' : typeof e.value === 'string' ? `'${e.value.replace(/'/gu, "''")}'` : `${String(e.value)}::${typeDisplayName(e.type)}`;
    case 'call':
      return `${e.name.replace(/^\$/u, '')}(${e.args.map(formatExpr).join(', ')})`;
    case 'cast':
      return `CAST(${formatExpr(e.arg)} AS ${typeDisplayName(e.type)})`;
    case 'and':
    case 'or':
      return `(${e.args.map(formatExpr).join(` ${e.kind.toUpperCase()} `)})`;
    case 'not':
      return `(NOT ${formatExpr(e.arg)})`;
    case 'isNull':
      return `(${formatExpr(e.arg)} IS ${e.negated ? 'NOT ' : ''}NULL)`;
    case 'in':
      return `(${formatExpr(e.arg)} ${e.negated ? 'NOT ' : ''}IN (${e.list.map(formatExpr).join(', ')}))`;
    case 'case':
      return `CASE ${e.whens.map((w) => `WHEN ${formatExpr(w.when)} THEN ${formatExpr(w.then)}`).join(' ')}${e.otherwise ? ` ELSE ${formatExpr(e.otherwise)}` : ''} END`;
    case 'coalesce':
      return `coalesce(${e.args.map(formatExpr).join(', ')})`;
    case 'like':
      return `(${formatExpr(e.arg)} ${e.negated ? 'NOT ' : ''}LIKE ${formatExpr(e.pattern)}${e.escape ? ` ESCAPE ${formatExpr(e.escape)}` : ''})`;
  }
}

function layout(fields: readonly Field[]): string {
  return `[${fields.map((f) => `${f.name}:${typeDisplayName(f.type)}`).join(', ')}]`;
}

function describeNode(node: PlanNode): string {
  switch (node.kind) {
    case 'output':
      return `Output[columnNames = [${node.names.join(', ')}]]`;
    case 'union':
      return `Union[inputs = ${node.inputs.length}]`;
    case 'groupId':
      return `GroupId[sets = ${JSON.stringify(node.sets)}]`;
    case 'window':
      return `Window[functions = [${node.functions.map((f) => `${f.name}(${f.args.map((a) => `#${a}`).join(', ')})`).join(', ')}]]`;
    case 'scan':
      return `TableScan[table = ${node.table.catalog}.${node.table.schema}.${node.table.name}]`;
    case 'values':
      return `Values[rows = ${node.rows.length}]`;
    case 'filter':
      return `Filter[filterPredicate = ${formatExpr(node.predicate)}]`;
    case 'project':
      return `Project[${node.exprs.map((e, i) => `${node.fields[i].name} := ${formatExpr(e)}`).join(', ')}]`;
    case 'aggregate':
      return `Aggregate[keys = [${node.groupBy.map((g) => `#${g}`).join(', ')}], aggregates = [${node.aggregates.map((a) => `${a.name}(${a.args.map((x) => `#${x}`).join(', ')})`).join(', ')}]]`;
    case 'sort':
      return `Sort[orderBy = [${node.keys.map((k) => `#${k.index} ${k.ascending ? 'ASC' : 'DESC'} NULLS ${k.nullsFirst ? 'FIRST' : 'LAST'}`).join(', ')}]]`;
    case 'limit':
      return `Limit[count = ${node.count ?? 'ALL'}${node.offset ? `, offset = ${node.offset}` : ''}]`;
    case 'join':
      return `${node.joinType === 'semi' ? 'SemiJoin' : node.joinType === 'anti' ? 'AntiJoin' : 'Join'}[type = ${node.joinType.toUpperCase()}, criteria = [${node.leftKeys.map((l, i) => `#${l} = #${node.rightKeys[i]}`).join(', ')}]${node.filter ? `, filter = ${formatExpr(node.filter)}` : ''}]`;
  }
}

export function explainLogical(plan: PlanNode): string {
  const lines: string[] = [];
  const walk = (node: PlanNode, depth: number): void => {
    const pad = '    '.repeat(depth);
    lines.push(`${pad}${depth > 0 ? '└─ ' : ''}${describeNode(node)}`);
    lines.push(`${pad}${depth > 0 ? '   ' : ''}   Layout: ${layout(node.fields)}`);
    for (const child of inputsOf(node)) walk(child, depth + 1);
  };
  walk(plan, 0);
  return lines.join('\n');
}

function describeOperator(op: OperatorSpec): string {
  switch (op.op) {
    case 'filterProject':
      return `${operatorTypeName(op)}[${op.filter ? `filter = ${formatExpr(op.filter)}, ` : ''}projections = [${op.projections.map(formatExpr).join(', ')}]]`;
    case 'aggregate':
      return `${operatorTypeName(op)}[step = ${op.step.toUpperCase()}, keys = [${op.groupBy.map((g) => `#${g}`).join(', ')}], aggregates = [${op.aggregates.map((a) => a.name).join(', ')}]]`;
    case 'orderBy':
      return `${operatorTypeName(op)}[${op.limit !== null ? `count = ${op.limit}, ` : ''}orderBy = [${op.keys.map((k) => `#${k.index} ${k.ascending ? 'ASC' : 'DESC'}`).join(', ')}]]`;
    case 'limit':
      return `${operatorTypeName(op)}[count = ${op.count ?? 'ALL'}, offset = ${op.offset}]`;
    case 'groupId':
      return `${operatorTypeName(op)}[sets = ${JSON.stringify(op.sets)}]`;
    case 'hashPartition':
      return `${operatorTypeName(op)}[keys = [${op.keys.map((k) => `#${k}`).join(', ')}], partition = ${op.index} of ${op.count}]`;
    case 'window':
      return `${operatorTypeName(op)}[functions = [${op.functions.map((f) => `${f.name}(${f.args.map((a) => `#${a}`).join(', ')})`).join(', ')}]]`;
    case 'hashJoin':
      return `${operatorTypeName(op)}[type = ${op.joinType.toUpperCase()}, build = ${op.joinId}, probeKeys = [${op.probeKeys.map((k) => `#${k}`).join(', ')}]${op.filter ? `, filter = ${formatExpr(op.filter)}` : ''}${op.output ? `, output = [${op.output.map((k) => `#${k}`).join(', ')}]` : ''}]`;
  }
}

export function describeFragment(f: FragmentSpec): string[] {
  const source = f.source.kind === 'scan' ? `TableScanOperator[table = ${f.source.table}, columns = [${f.source.columns.join(', ')}]]` : `ExchangeOperator[sources = [${f.source.stages.join(', ')}]]`;
  return [source, ...f.operators.map(describeOperator), `TaskOutputOperator[types = [${f.outputTypes.map(typeDisplayName).join(', ')}]]`];
}

export function explainDistributed(plan: QueryPlan): string {
  const out: string[] = [];
  for (const stage of plan.stages) {
    const f = stage.fragment;
    out.push(`Fragment ${stage.stageId} [${f.partitioning === 'single' ? 'SINGLE' : 'SOURCE'}]${stage.builds.length ? ` builds: [${stage.builds.map((b) => `join ${b.joinId} <- fragment ${b.stageId}`).join(', ')}]` : ''}${stage.emitMarked ? ` emits ${stage.emitMarked.anti ? 'unmatched' : 'matched'} rows of join ${stage.emitMarked.joinId}` : ''}${stage.emitUnmatched ? ` then unmatched rows of left join ${stage.emitUnmatched.joinId}` : ''}`);
    out.push(`    Output layout: [${f.outputTypes.map(typeDisplayName).join(', ')}]`);
    describeFragment(f).forEach((line, i) => out.push(`    ${'  '.repeat(i)}${i > 0 ? '└─ ' : ''}${line}`));
    out.push('');
  }
  return out.join('\n').trimEnd();
}

/** What EXPLAIN ANALYZE shows of one executed stage (plain data from its task). */
export interface StageRun {
  readonly stageId: number;
  readonly operators: readonly OperatorStats[];
  readonly cpuNanos: number;
  readonly wallNanos: number;
  readonly drivers: number;
}

function millis(nanos: number): string {
  return `${(nanos / 1e6).toFixed(2)}ms`;
}

function bytes(n: number): string {
  return n < 1024 ? `${n}B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(2)}kB` : `${(n / 1024 / 1024).toFixed(2)}MB`;
}

/** The distributed plan with what each operator really did: rows, bytes and time. */
export function explainAnalyze(plan: QueryPlan, runs: readonly StageRun[]): string {
  const out: string[] = [];
  for (const stage of plan.stages) {
    const f = stage.fragment;
    const run = runs.find((r) => r.stageId === stage.stageId);
    out.push(`Fragment ${stage.stageId} [${f.partitioning === 'single' ? 'SINGLE' : 'SOURCE'}]`);
    if (run) out.push(`    CPU: ${millis(run.cpuNanos)}, Scheduled: ${millis(run.wallNanos)}, Drivers: ${run.drivers}`);
    const lines = describeFragment(f);
    lines.forEach((line, i) => {
      out.push(`    ${'  '.repeat(i)}${i > 0 ? '└─ ' : ''}${line}`);
      const s = run?.operators[i];
      if (s) {
        const pad = `    ${'  '.repeat(i)}${i > 0 ? '   ' : ''}   `;
        out.push(`${pad}Input: ${s.inputPositions} rows (${bytes(s.inputBytes)}), Output: ${s.outputPositions} rows (${bytes(s.outputBytes)})`);
        out.push(`${pad}Time: ${millis(s.addInputNanos + s.getOutputNanos + s.finishNanos)}${s.peakMemoryBytes ? `, Peak memory: ${bytes(s.peakMemoryBytes)}` : ''}`);
      }
    });
    out.push('');
  }
  return out.join('\n').trimEnd();
}
