// Rendering queries and tasks for the wire: StatementStats (with the StageStats tree), QueryInfo,
// BasicQueryInfo and TaskInfo, all from the counters the tasks and operators really kept.

import { formatDataSize, formatDuration, isoTimestamp } from '../util/wire-format.js';
import type { OperatorStats } from '../exec/metrics.js';
import type { Query } from './query.js';
import type { SqlTask, TaskState } from './task.js';
import { TextMemo } from '../util/text-memo.js';

const nanosToMillis = (n: number): number => Math.round(n / 1e6);
const nanosDuration = (n: number): string => formatDuration(n / 1e6);

function stageState(task: SqlTask | undefined, queryState: string): string {
  if (!task) return queryState === 'FAILED' ? 'FAILED' : 'PLANNED';
  switch (task.state) {
    case 'RUNNING':
      return task.runningDrivers > 0 ? 'RUNNING' : 'SCHEDULED';
    case 'FLUSHING':
      return 'RUNNING';
    default:
      return task.state;
  }
}

const DONE_STAGE_STATES = new Set(['FINISHED', 'CANCELED', 'ABORTED', 'FAILED']);

/** The stages a stage reads: its exchange inputs and its join build inputs. */
function subStageIds(stage: { children: readonly number[]; builds?: readonly { stageId: number }[] } | undefined): readonly number[] {
  if (!stage) return [];
  const builds = stage.builds ?? [];
  if (builds.length === 0) return stage.children;
  return [...new Set([...stage.children, ...builds.map((b) => b.stageId)])];
}

/** A stage's StageStats (for stage infos; the statement protocol writes them as text, stageStatsJson). */
function stageStats(query: Query, stageId: number): Record<string, unknown> {
  return JSON.parse(stageStatsJson(query, stageId)) as Record<string, unknown>;
}

/** A number as JSON writes it (non-finite numbers are null). */
function jsonNumber(x: number): string {
  return Number.isFinite(x) ? String(x) : 'null';
}

/** Numbers of a statistics text being built (TextMemo keys; filled and read in one call, no nesting). */
const statValues = new Float64Array(12);

/** The last StageStats text of each stage id: a stream of the same statement repeats it. */
const stageTexts: TextMemo[] = [];

/** A stage's StageStats as JSON text, its sub-stages nested (see statementStatsJson). */
function stageStatsJson(query: Query, stageId: number): string {
  const execution = query.execution;
  const task = execution?.task(stageId);
  const stage = execution?.plan.stages.find((s) => s.stageId === stageId);
  const state = stageState(task, query.state);
  const subStages = subStageIds(stage)
    .map((c) => stageStatsJson(query, c))
    .join(',');
  const v = statValues;
  v[0] = stageId;
  v[1] = task ? 1 : 0;
  v[2] = task?.totalDrivers ?? 0;
  v[3] = task?.queuedDrivers ?? 0;
  v[4] = task?.runningDrivers ?? 0;
  v[5] = task?.completedDrivers ?? 0;
  v[6] = nanosToMillis(task?.cpuNanos ?? 0);
  v[7] = nanosToMillis(task?.scheduledNanos ?? 0);
  v[8] = task?.rawInputRows ?? 0;
  v[9] = task?.rawInputBytes ?? 0;
  v[10] = stage?.fragment.source.kind === 'scan' ? (task?.rawInputBytes ?? 0) : 0;
  v[11] = task?.state === 'FAILED' ? 1 : 0;
  const memo = (stageTexts[stageId] ??= new TextMemo(12));
  // The state and the sub-stages' texts as one key string (a state name has no '|').
  const keyText = `${state}|${subStages}`;
  return (
    memo.get(v, keyText) ??
    memo.set(
      v,
      keyText,
      `{"stageId":"${stageId}","state":"${state}","done":${DONE_STAGE_STATES.has(state)},"nodes":${v[1]}` +
        `,"totalSplits":${jsonNumber(v[2])},"queuedSplits":${jsonNumber(v[3])}` +
        `,"runningSplits":${jsonNumber(v[4])},"completedSplits":${jsonNumber(v[5])}` +
        `,"cpuTimeMillis":${jsonNumber(v[6])},"wallTimeMillis":${jsonNumber(v[7])}` +
        `,"processedRows":${jsonNumber(v[8])},"processedBytes":${jsonNumber(v[9])}` +
        `,"physicalInputBytes":${jsonNumber(v[10])}` +
        `,"failedTasks":${v[11]},"coordinatorOnly":false,"subStages":[${subStages}]}`,
    )
  );
}

/**
 * StatementStats as JSON text, in Trino's field order, written directly: every answer of the
 * statement protocol carries it, and JSON.stringify of it as an object was a tenth of the
 * coordinator thread's time under a stream of SELECT 1 (test/coordinator-statement.test.ts
 * "answer layout" checks fields and order).
 */
export function statementStatsJson(query: Query): string {
  const tasks = query.execution?.tasks ?? [];
  const now = query.endTime ?? Date.now();
  // A POST's answer: nothing scheduled, no time passed. The same text for every such answer.
  if (query.execution === undefined && now === query.createTime && (query.planningStartTime ?? now) === now) {
    let text = unscheduledStats.get(query.state);
    if (text === undefined) unscheduledStats.set(query.state, (text = statsJson(query, tasks, now)));
    return text;
  }
  return statsJson(query, tasks, now);
}

/** statementStatsJson of a query with no tasks and no time passed, by state. */
const unscheduledStats = new Map<string, string>();

function statsJson(query: Query, tasks: readonly SqlTask[], now: number): string {
  let totalSplits = 0;
  let queuedSplits = 0;
  let runningSplits = 0;
  let completedSplits = 0;
  let cpuNanos = 0;
  let scheduledNanos = 0;
  let leafRows = 0;
  let leafBytes = 0;
  let peakMemoryBytes = 0;
  let scheduled = tasks.length > 0;
  for (const t of tasks) {
    totalSplits += t.totalDrivers;
    queuedSplits += t.queuedDrivers;
    runningSplits += t.runningDrivers;
    completedSplits += t.completedDrivers;
    cpuNanos += t.cpuNanos;
    scheduledNanos += t.scheduledNanos;
    peakMemoryBytes += t.peakMemoryBytes + t.outputBuffer.peakBufferedBytes;
    if (t.state === 'PLANNED') scheduled = false;
    if (t.fragment.source.kind === 'scan') {
      leafRows += t.rawInputRows;
      leafBytes += t.rawInputBytes;
    }
  }
  // Every field but the two times a query's answers differ in most (queued, elapsed) comes from
  // a memo: the part before them and the part after, each the last text built from equal values.
  const v = statValues;
  v[0] = scheduled ? 1 : 0;
  v[1] = tasks.length > 0 ? 1 : 0;
  v[2] = totalSplits;
  v[3] = queuedSplits;
  v[4] = runningSplits;
  v[5] = completedSplits;
  v[6] = nanosToMillis(cpuNanos);
  v[7] = nanosToMillis(scheduledNanos);
  const head =
    statsHead.get(v, query.state) ??
    statsHead.set(
      v,
      query.state,
      `{"state":"${query.state}","queued":${query.state === 'QUEUED'},"scheduled":${scheduled},"nodes":${v[1]}` +
        `,"totalSplits":${jsonNumber(totalSplits)},"queuedSplits":${jsonNumber(queuedSplits)},"runningSplits":${jsonNumber(runningSplits)},"completedSplits":${jsonNumber(completedSplits)}` +
        `,"cpuTimeMillis":${jsonNumber(v[6])},"wallTimeMillis":${jsonNumber(v[7])}`,
    );
  const rootStage = query.execution ? stageStatsJson(query, 0) : '';
  v[0] = leafRows;
  v[1] = leafBytes;
  v[2] = peakMemoryBytes;
  // -1: no progress field (a fraction is never negative).
  v[3] = scheduled && totalSplits > 0 ? Math.min(100, (completedSplits * 100) / totalSplits) : -1;
  const tail =
    statsTail.get(v, rootStage) ??
    statsTail.set(
      v,
      rootStage,
      `,"processedRows":${jsonNumber(leafRows)},"processedBytes":${jsonNumber(leafBytes)},"physicalInputBytes":${jsonNumber(leafBytes)}` +
        `,"peakMemoryBytes":${jsonNumber(peakMemoryBytes)},"spilledBytes":0` +
        `${v[3] >= 0 ? `,"progressPercentage":${jsonNumber(v[3])}` : ''}${query.execution ? `,"rootStage":${rootStage}` : ''}}`,
    );
  return `${head},"queuedTimeMillis":${jsonNumber((query.planningStartTime ?? now) - query.createTime)},"elapsedTimeMillis":${jsonNumber(now - query.createTime)}${tail}`;
}

/** The last texts of StatementStats before and after its two times (see statsJson). */
const statsHead = new TextMemo(8);
const statsTail = new TextMemo(4);

function sum(tasks: readonly SqlTask[], f: (t: SqlTask) => number): number {
  return tasks.reduce((n, t) => n + f(t), 0);
}

function leafTasks(query: Query): SqlTask[] {
  const execution = query.execution;
  if (!execution) return [];
  return execution.tasks.filter((t) => t.fragment.source.kind === 'scan');
}

function distribution(values: readonly number[]): Record<string, number> {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number): number => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : Number.NaN);
  return {
    maxError: 0,
    count: sorted.length,
    total: sorted.reduce((a, b) => a + b, 0),
    p01: at(0.01),
    p05: at(0.05),
    p10: at(0.1),
    p25: at(0.25),
    p50: at(0.5),
    p75: at(0.75),
    p90: at(0.9),
    p95: at(0.95),
    p99: at(0.99),
    min: sorted.length ? sorted[0] : Number.NaN,
    max: sorted.length ? sorted[sorted.length - 1] : Number.NaN,
  };
}

function operatorSummary(s: OperatorStats, pipelineId: number, info?: Record<string, unknown>): Record<string, unknown> {
  return {
    pipelineId,
    operatorId: s.operatorId,
    planNodeId: String(s.operatorId),
    operatorType: s.operatorType,
    totalDrivers: 1,
    addInputCalls: s.addInputCalls,
    addInputWall: nanosDuration(s.addInputNanos),
    addInputCpu: nanosDuration(s.addInputNanos),
    addInputUser: nanosDuration(s.addInputNanos),
    inputDataSize: formatDataSize(s.inputBytes),
    inputPositions: s.inputPositions,
    getOutputCalls: s.getOutputCalls,
    getOutputWall: nanosDuration(s.getOutputNanos),
    getOutputCpu: nanosDuration(s.getOutputNanos),
    getOutputUser: nanosDuration(s.getOutputNanos),
    outputDataSize: formatDataSize(s.outputBytes),
    outputPositions: s.outputPositions,
    blockedWall: '0.00ns',
    finishCalls: s.finishCalls,
    finishWall: nanosDuration(s.finishNanos),
    finishCpu: nanosDuration(s.finishNanos),
    finishUser: nanosDuration(s.finishNanos),
    memoryReservation: formatDataSize(0),
    peakUserMemoryReservation: formatDataSize(s.peakMemoryBytes),
    ...(info ? { info } : {}),
  };
}

function exchangeInfo(task: SqlTask, query: Query | undefined, baseUrl: string): Record<string, unknown> {
  const children = query?.execution?.plan.stages.find((s) => s.stageId === task.stageId)?.children ?? [];
  const upstream = children.map((c) => query?.execution?.task(c)).filter((t): t is SqlTask => t !== undefined);
  const pages = upstream.reduce((n, t) => n + t.outputBuffer.pagesAdded, 0);
  const bytes = upstream.reduce((n, t) => n + t.outputBuffer.bytesAdded, 0);
  return {
    '@type': 'directExchangeClientStatus',
    bufferedBytes: upstream.reduce((n, t) => n + t.outputBuffer.bufferedBytes, 0),
    maxBufferedBytes: upstream.reduce((n, t) => n + t.outputBuffer.peakBufferedBytes, 0),
    averageBytesPerRequest: pages > 0 ? Math.round(bytes / pages) : 0,
    successfulRequestsCount: pages,
    bufferedPages: upstream.reduce((n, t) => n + t.outputBuffer.bufferedPages, 0),
    noMoreLocations: true,
    pageBufferClientStatuses: upstream.map((t) => ({
      uri: `${baseUrl}/v1/task/${t.taskId}/results/0`,
      state: t.outputBuffer.isFinished ? 'closed' : 'running',
      lastUpdate: isoTimestamp(t.endTime ?? Date.now()),
      pagesReceived: t.outputBuffer.pagesAdded,
      rowsReceived: t.outputBuffer.rowsAdded,
      requestsScheduled: t.outputBuffer.pagesAdded,
      requestsCompleted: t.outputBuffer.pagesAdded,
      requestsFailed: 0,
      httpRequestState: 'not scheduled',
    })),
  };
}

/** The time, input and output counters a task and its pipeline report alike. */
function sharedStats(task: SqlTask, processedBytes: number, processedRows: number, output: OperatorStats | undefined): Record<string, unknown> {
  return {
    totalScheduledTime: nanosDuration(task.scheduledNanos),
    totalCpuTime: nanosDuration(task.cpuNanos),
    totalBlockedTime: nanosDuration(task.blockedNanos),
    fullyBlocked: false,
    blockedReasons: [],
    rawInputDataSize: formatDataSize(task.rawInputBytes),
    rawInputPositions: task.rawInputRows,
    processedInputDataSize: formatDataSize(processedBytes),
    processedInputPositions: processedRows,
    outputDataSize: formatDataSize(output?.outputBytes ?? 0),
    outputPositions: output?.outputPositions ?? 0,
    physicalWrittenDataSize: '0B',
  };
}

export function taskStats(task: SqlTask, query?: Query, baseUrl = ''): Record<string, unknown> {
  const now = task.endTime ?? Date.now();
  const source = task.operatorStats[0];
  const output = task.operatorStats[task.operatorStats.length - 1];
  const processedRows = source?.outputPositions ?? 0;
  const processedBytes = source?.outputBytes ?? 0;
  const elapsed = formatDuration(now - task.createTime);
  const queued = formatDuration((task.startTime ?? now) - task.createTime);
  const operatorSummaries = task.operatorStats.map((s, i) => operatorSummary(s, 0, i === 0 && s.operatorType === 'ExchangeOperator' ? exchangeInfo(task, query, baseUrl) : undefined));
  const pipeline = {
    pipelineId: 0,
    firstStartTime: task.startTime ? isoTimestamp(task.startTime) : undefined,
    lastEndTime: task.endTime ? isoTimestamp(task.endTime) : undefined,
    inputPipeline: true,
    outputPipeline: true,
    totalDrivers: task.totalDrivers,
    queuedDrivers: task.queuedDrivers,
    queuedPartitionedDrivers: task.queuedDrivers,
    runningDrivers: task.runningDrivers,
    runningPartitionedDrivers: task.runningDrivers,
    blockedDrivers: 0,
    completedDrivers: task.completedDrivers,
    memoryReservation: formatDataSize(task.memoryReservation()),
    revocableMemoryReservation: '0B',
    queuedTime: distribution([]),
    elapsedTime: distribution(task.driverMillis),
    ...sharedStats(task, processedBytes, processedRows, output),
    operatorSummaries,
    drivers: [],
  };
  return {
    createTime: isoTimestamp(task.createTime),
    ...(task.startTime !== undefined ? { firstStartTime: isoTimestamp(task.startTime), startTime: isoTimestamp(task.startTime) } : {}),
    ...(task.endTime !== undefined ? { lastEndTime: isoTimestamp(task.endTime), endTime: isoTimestamp(task.endTime) } : {}),
    elapsedTime: elapsed,
    queuedTime: queued,
    totalDrivers: task.totalDrivers,
    queuedDrivers: task.queuedDrivers,
    runningDrivers: task.runningDrivers,
    blockedDrivers: 0,
    completedDrivers: task.completedDrivers,
    cumulativeUserMemory: 0,
    userMemoryReservation: formatDataSize(task.memoryReservation()),
    memoryReservation: formatDataSize(task.memoryReservation()),
    peakUserMemoryReservation: formatDataSize(task.peakMemoryBytes),
    ...sharedStats(task, processedBytes, processedRows, output),
    pipelines: task.operatorStats.length > 0 || task.totalDrivers > 0 ? [pipeline] : [],
  };
}

export function taskInfo(task: SqlTask, baseUrl: string, query?: Query): Record<string, unknown> {
  const buffer = task.outputBuffer;
  const self = `${baseUrl}/v1/task/${task.taskId}`;
  return {
    taskId: task.taskId,
    taskInstanceId: task.taskInstanceId,
    version: task.version,
    state: task.state,
    self,
    lastHeartbeat: isoTimestamp(task.lastHeartbeat),
    taskStatus: {
      taskId: task.taskId,
      taskInstanceId: task.taskInstanceId,
      version: task.version,
      state: task.state,
      self,
      nodeId: 'coordinator',
      failures: task.failure ? [failureInfo(task.failure)] : [],
      queuedPartitionedDrivers: task.queuedDrivers,
      runningPartitionedDrivers: task.runningDrivers,
      memoryReservation: formatDataSize(task.memoryReservation()),
      peakMemoryReservation: formatDataSize(task.peakMemoryBytes),
    },
    outputBuffers: {
      type: 'PARTITIONED',
      state: buffer.state,
      canAddBuffers: false,
      canAddPages: !buffer.isFinished,
      totalBufferedBytes: buffer.bufferedBytes,
      totalBufferedPages: buffer.bufferedPages,
      totalRowsSent: buffer.rowsAdded,
      totalPagesSent: buffer.pagesSent,
      masterSequenceId: buffer.sequence,
      pagesAdded: buffer.pagesAdded,
      buffers: [{ bufferId: buffer.bufferId, finished: buffer.state === 'FINISHED', bufferedPages: buffer.bufferedPages, pagesSent: buffer.pagesSent }],
    },
    noMoreSplits: task.noMoreSplits && task.fragment.source.kind === 'scan' ? ['0'] : [],
    stats: taskStats(task, query, baseUrl),
    failures: task.failure ? [failureInfo(task.failure)] : [],
    outputs: {},
    needsPlan: false,
  };
}

function failureInfo(e: Error): Record<string, unknown> {
  return { type: e.name === 'EngineError' ? 'io.trino.spi.TrinoException' : 'java.lang.RuntimeException', message: e.message, suppressed: [], stack: [] };
}

function sessionOf(query: Query): Record<string, unknown> {
  const s = query.session;
  return {
    queryId: query.id,
    user: s.user,
    source: s.source,
    catalog: s.catalog,
    schema: s.schema,
    timeZoneKey: 0,
    timeZone: s.timeZone ?? 'UTC',
    locale: 'en_US',
    remoteUserAddress: s.remoteUserAddress,
    userAgent: s.userAgent,
    clientInfo: s.clientInfo,
    clientTags: [],
    clientCapabilities: [],
    startTime: s.startTime,
    systemProperties: s.properties,
    catalogProperties: {},
    preparedStatements: {},
    protocolName: s.headerPrefix === 'X-Presto-' ? 'presto' : s.headerPrefix === 'X-Trino-' ? 'trino' : 'engine',
  };
}

function queryStats(query: Query): Record<string, unknown> {
  const tasks = query.execution?.tasks ?? [];
  const leaves = leafTasks(query);
  const now = query.endTime ?? Date.now();
  const root = query.execution?.rootTask;
  return {
    createTime: isoTimestamp(query.createTime),
    ...(query.executionStartTime !== undefined ? { executionStartTime: isoTimestamp(query.executionStartTime) } : {}),
    lastHeartbeat: isoTimestamp(query.lastHeartbeat),
    ...(query.endTime !== undefined ? { endTime: isoTimestamp(query.endTime) } : {}),
    elapsedTime: formatDuration(now - query.createTime),
    queuedTime: formatDuration((query.planningStartTime ?? now) - query.createTime),
    analysisTime: formatDuration((query.planningEndTime ?? now) - (query.planningStartTime ?? now)),
    planningTime: formatDuration((query.planningEndTime ?? now) - (query.planningStartTime ?? now)),
    executionTime: formatDuration(now - (query.executionStartTime ?? now)),
    totalTasks: tasks.length,
    runningTasks: tasks.filter((t) => !t.done).length,
    completedTasks: tasks.filter((t) => t.done).length,
    totalDrivers: sum(tasks, (t) => t.totalDrivers),
    queuedDrivers: sum(tasks, (t) => t.queuedDrivers),
    runningDrivers: sum(tasks, (t) => t.runningDrivers),
    blockedDrivers: 0,
    completedDrivers: sum(tasks, (t) => t.completedDrivers),
    cumulativeUserMemory: 0,
    userMemoryReservation: formatDataSize(query.execution?.memoryReservation() ?? 0),
    totalMemoryReservation: formatDataSize(query.execution?.memoryReservation() ?? 0),
    peakUserMemoryReservation: formatDataSize(sum(tasks, (t) => t.peakMemoryBytes + t.outputBuffer.peakBufferedBytes)),
    peakTotalMemoryReservation: formatDataSize(sum(tasks, (t) => t.peakMemoryBytes + t.outputBuffer.peakBufferedBytes)),
    totalScheduledTime: nanosDuration(sum(tasks, (t) => t.scheduledNanos)),
    totalCpuTime: nanosDuration(sum(tasks, (t) => t.cpuNanos)),
    totalBlockedTime: nanosDuration(sum(tasks, (t) => t.blockedNanos)),
    fullyBlocked: false,
    blockedReasons: [],
    rawInputDataSize: formatDataSize(sum(leaves, (t) => t.rawInputBytes)),
    rawInputPositions: sum(leaves, (t) => t.rawInputRows),
    physicalInputDataSize: formatDataSize(sum(leaves, (t) => t.rawInputBytes)),
    processedInputDataSize: formatDataSize(sum(leaves, (t) => t.rawInputBytes)),
    processedInputPositions: sum(leaves, (t) => t.rawInputRows),
    outputDataSize: formatDataSize(root?.outputBuffer.bytesAdded ?? 0),
    outputPositions: root?.outputBuffer.rowsAdded ?? 0,
    ...(tasks.length && sum(tasks, (t) => t.totalDrivers) > 0 ? { progressPercentage: Math.min(100, (sum(tasks, (t) => t.completedDrivers) * 100) / sum(tasks, (t) => t.totalDrivers)) } : {}),
  };
}

function stageInfo(query: Query, stageId: number, baseUrl: string): Record<string, unknown> {
  const execution = query.execution;
  const stage = execution?.plan.stages.find((s) => s.stageId === stageId);
  const task = execution?.task(stageId);
  return {
    stageId: `${query.id}.${stageId}`,
    state: stageState(task, query.state),
    self: `${baseUrl}/v1/stage/${query.id}.${stageId}`,
    types: stage?.fragment.outputTypes.map((t) => t.id) ?? [],
    stageStats: stageStats(query, stageId),
    tasks: task ? [taskInfo(task, baseUrl, query)] : [],
    subStages: subStageIds(stage).map((c) => stageInfo(query, c, baseUrl)),
  };
}

function errorCode(query: Query): Record<string, unknown> {
  const e = query.error;
  return e ? { errorType: e.errorType, errorCode: { code: e.errorCode, name: e.errorName, type: e.errorType } } : {};
}

export function basicQueryInfo(query: Query, baseUrl: string): Record<string, unknown> {
  const q = queryStats(query);
  return {
    queryId: query.id,
    session: sessionOf(query),
    resourceGroupId: ['global'],
    state: query.state,
    memoryPool: 'general',
    scheduled: query.execution !== undefined,
    self: `${baseUrl}/v1/query/${query.id}`,
    query: query.sql,
    ...(query.updateType ? { updateType: query.updateType } : {}),
    queryStats: q,
    ...errorCode(query),
  };
}

export function queryInfo(query: Query, baseUrl: string): Record<string, unknown> {
  const error = query.errorBody();
  return {
    queryId: query.id,
    session: sessionOf(query),
    state: query.state,
    memoryPool: 'general',
    scheduled: query.execution !== undefined,
    self: `${baseUrl}/v1/query/${query.id}`,
    fieldNames: query.names ?? [],
    query: query.sql,
    ...(query.boundSql !== undefined && query.boundSql !== query.sql ? { preparedQuery: query.boundSql } : {}),
    queryStats: queryStats(query),
    ...(query.sessionUpdates.setCatalog !== undefined ? { setCatalog: query.sessionUpdates.setCatalog } : {}),
    ...(query.sessionUpdates.setSchema !== undefined ? { setSchema: query.sessionUpdates.setSchema } : {}),
    setSessionProperties: query.sessionUpdates.setSession ? { [query.sessionUpdates.setSession.name]: query.sessionUpdates.setSession.value } : {},
    resetSessionProperties: query.sessionUpdates.resetSession !== undefined ? [query.sessionUpdates.resetSession] : [],
    addedPreparedStatements: query.sessionUpdates.addedPrepare ? { [query.sessionUpdates.addedPrepare.name]: query.sessionUpdates.addedPrepare.sql } : {},
    deallocatedPreparedStatements: query.sessionUpdates.deallocatedPrepare !== undefined ? [query.sessionUpdates.deallocatedPrepare] : [],
    clearTransactionId: false,
    ...(query.updateType ? { updateType: query.updateType } : {}),
    outputStage: query.execution ? stageInfo(query, 0, baseUrl) : {},
    ...(error ? { failureInfo: { ...error.failureInfo, errorCode: { code: error.errorCode, name: error.errorName, type: error.errorType } } } : {}),
    ...errorCode(query),
    warnings: [],
    inputs: [],
    finalQueryInfo: query.done,
  };
}
