// Piscina entry: runs one driver (a fragment's pipeline over one split or one batch of exchanged
// pages), or scan drivers over the splits it claims from a stage's shared list, on a worker thread.
// Pages in and out are SharedArrayBuffer-backed, so nothing is copied. Errors come back as data:
// structured clone would drop an EngineError's code.

import { generateTpchSplit, installTextPool, textPoolReady, TEXT_POOL_SIZE, type TpchSplit } from '../connectors/tpch/index.js';
import { workerData } from 'piscina';
import { buildTextPool } from '../connectors/tpch/text-pool.js';
import { installArena } from '../data/arena.js';
import type { Split } from '../connectors/catalog.js';
import { pageRowRange, projectPage, sharedPage, type Column, type Page } from '../data/page.js';
import { gatherPage, sliceColumn } from './gather.js';
import { toEngineError, type SerializedEngineError } from '../util/engine-error.js';
import { adaptPartialAggregation, endsInPartialAggregation, Pipeline, runPipeline, type DriverResult } from './pipeline.js';
import { nowNanos } from './metrics.js';
import type { FragmentSpec } from './specs.js';
import { buildJoinTable, type JoinTable } from './join-table.js';
import type { SqlType } from '../data/types.js';
import { currentGuard, guarded, type QueryControl } from './query-control.js';

// The pool's column arena: generated columns are allocated in it, wasm kernels read them there.
installArena((workerData as { arena?: WebAssembly.Memory } | undefined)?.arena ?? null);

/** The query's stop flag and memory budget (query-control.ts), polled by the drivers. */
interface Controlled {
  readonly control?: QueryControl;
}

export type WorkerRequest = Controlled &
  (
    | {
        readonly kind: 'driver';
        readonly fragment: FragmentSpec;
        readonly split?: Split;
        readonly pages?: readonly Page[];
        readonly textPool?: Uint8Array;
        readonly joins?: Readonly<Record<number, JoinTable>>;
      }
    | {
        /**
         * Scan drivers, one per split, over the splits this worker claims: `claim[0]` is the next
         * split to take (shared by every worker on the stage), `claim[1]` non-zero stops claiming.
         */
        readonly kind: 'claimDrivers';
        readonly fragment: FragmentSpec;
        readonly splits: readonly Split[];
        readonly claim: Int32Array;
        /** How many of the last splits are claimed in quarters (cached splits only; see claimUnit). */
        readonly slicedTail?: number;
        readonly textPool?: Uint8Array;
        readonly joins?: Readonly<Record<number, JoinTable>>;
      }
    | { readonly kind: 'buildJoin'; readonly pages: readonly Page[]; readonly types: readonly SqlType[]; readonly keys: readonly number[]; readonly trackMatches: boolean }
    /** The page's rows at `rows` (a join's marked build rows), as a driver's one output page. */
    | { readonly kind: 'gatherRows'; readonly page: Page; readonly rows: Int32Array }
    | { readonly kind: 'buildTextPool' }
  );

/** Columns generated for a split (table positions), for the coordinator's cache. */
export interface GeneratedColumns {
  readonly cacheKey: string;
  readonly length: number;
  readonly positions: readonly number[];
  readonly columns: readonly Column[];
}

/** One driver's result; for a scan of a generated split, the columns generated. */
export interface DriverOutcome {
  readonly result: DriverResult;
  readonly generated?: GeneratedColumns;
}

/**
 * A claimed split's driver outcome (claimDrivers), with which of the request's splits it ran. A
 * driver over several splits (one partial aggregation fed by all of them) reports its result
 * with its first split; the others carry only the columns they generated.
 */
export interface ClaimedOutcome {
  readonly split: number;
  readonly result?: DriverResult;
  readonly generated?: GeneratedColumns;
}

export type WorkerResponse =
  | ({ readonly ok: true } & DriverOutcome)
  | { readonly ok: true; readonly drivers: readonly ClaimedOutcome[] }
  | { readonly ok: true; readonly textPool: Uint8Array }
  | { readonly ok: true; readonly joinTable: JoinTable }
  | { readonly ok: false; readonly error: SerializedEngineError };

export function runWorkerRequest(req: WorkerRequest): WorkerResponse {
  try {
    return guarded(req.control, () => runRequest(req));
  } catch (e) {
    return { ok: false, error: toEngineError(e).toJSON() };
  }
}

function runRequest(req: WorkerRequest): WorkerResponse {
  if (req.kind === 'buildTextPool') return { ok: true, textPool: buildTextPool(TEXT_POOL_SIZE) };
  if (req.kind === 'buildJoin') return { ok: true, joinTable: buildJoinTable(req.pages, req.types, req.keys, req.trackMatches) };
  if (req.kind === 'gatherRows') return { ok: true, result: shareOutput({ pages: [gatherPage(req.page, req.rows)], stats: [], wallNanos: 0, cpuNanos: 0 }) };
  const joins = req.joins ?? {};
  if (req.kind === 'claimDrivers') return { ok: true, drivers: runClaimedSplits(req.fragment, req.splits, req.claim, req.slicedTail ?? 0, joins, req.textPool) };
  const { fragment } = req;
  if (fragment.source.kind === 'exchange') return { ok: true, result: shareOutput(runPipeline(fragment, req.pages ?? [], joins)) };
  if (!req.split) throw new Error('a scan driver needs a split');
  return { ok: true, ...runScan(fragment, req.split, joins, req.textPool) };
}

/**
 * Claims splits until none is left or the coordinator says stop. A fragment ending in a partial
 * aggregation feeds every split it claims into one pipeline (see below); any other runs one driver
 * per split, adapting the partial aggregation as runSplitsOneByOne does. Outcomes go to the
 * coordinator, which queues them in split order. Partial double sums therefore depend on which
 * worker claimed which splits, so a double sum can differ in its last bits between runs; within
 * one query every reader of the stage sees the same pages, and Q15, which compares a sum with
 * itself, agrees.
 */
function runClaimedSplits(fragment: FragmentSpec, splits: readonly Split[], claim: Int32Array, slicedTail: number, joins: Readonly<Record<number, JoinTable>>, textPool: Uint8Array | undefined): ClaimedOutcome[] {
  const outcomes: ClaimedOutcome[] = [];
  let current = fragment;
  // A fragment ending in a partial aggregation feeds every split this worker claims into one
  // pipeline: one aggregation state, finished once (per split, Q1's 23 partial results cost
  // 0.2-0.5 ms of finishing each and were all merged again by the final step).
  let open: { readonly pipeline: Pipeline; readonly pages: Page[]; readonly split: number; wallNanos: number } | null = null;
  const close = (): void => {
    if (open === null) return;
    const started = nowNanos();
    open.pipeline.finish();
    const wallNanos = open.wallNanos + nowNanos() - started;
    const result = shareOutput({ pages: open.pages, stats: open.pipeline.stats(), wallNanos, cpuNanos: wallNanos });
    currentGuard()?.keep(open.pipeline.heldBytes());
    outcomes.push({ split: open.split, result });
    current = adaptPartialAggregation(current, result);
    open = null;
  };
  const units = claimUnits(splits.length, slicedTail);
  while (Atomics.load(claim, 1) === 0) {
    const unit = Atomics.add(claim, 0, 1);
    if (unit >= units) break;
    const { split, slice } = claimUnit(unit, splits.length, slicedTail);
    const { pages: input, generated } = slice === undefined ? scanPages(current, splits[split], textPool) : { pages: slicePages(current, splits[split], slice), generated: undefined };
    if (!endsInPartialAggregation(current)) {
      const result = shareOutput(runPipeline(current, input, joins));
      currentGuard()?.keep(result.stats[result.stats.length - 1]?.outputBytes ?? 0);
      outcomes.push({ result, generated, split });
      current = adaptPartialAggregation(current, result);
      continue;
    }
    if (open === null) {
      const pages: Page[] = [];
      open = { pipeline: new Pipeline(current, (p) => pages.push(p), joins), pages, split, wallNanos: 0 };
    }
    const started = nowNanos();
    for (const page of input) open.pipeline.addInput(page);
    open.wallNanos += nowNanos() - started;
    if (generated) outcomes.push({ split, generated });
    // Many groups: hand them on now (and let adaptPartialAggregation judge the reduction).
    if (open.pipeline.aggregationGroups() > MERGED_AGGREGATION_MAX_GROUPS) close();
  }
  close();
  return outcomes;
}

/**
 * Claim units: the splits, except the last `slicedTail`, which are claimed in SLICES row ranges
 * each. Workers then finish within a quarter split of one another instead of a whole split (Q6's
 * 512k-row splits take 1.5 ms each; whole, the last one left its worker alone that long).
 */
function claimUnits(splits: number, slicedTail: number): number {
  return splits - slicedTail + slicedTail * SLICES;
}

function claimUnit(unit: number, splits: number, slicedTail: number): { split: number; slice?: number } {
  const whole = splits - slicedTail;
  if (unit < whole) return { split: unit };
  return { split: whole + Math.floor((unit - whole) / SLICES), slice: (unit - whole) % SLICES };
}

const SLICES = 4;
/** Slice bounds are multiples of this many rows: whole bitmap bytes, whole kernel blocks. */
const SLICE_ALIGN = 1024;

/** Slice `slice` (of SLICES) of a cached split's rows, as its scan reads them: views where it can, copies else. */
function slicePages(fragment: FragmentSpec, split: Split, slice: number): Page[] {
  if (split.kind !== 'pages') throw new Error('only cached splits are claimed in slices');
  const columns = scanColumns(fragment);
  const rows = split.pages.reduce((n, p) => n + p.length, 0);
  const bound = (k: number): number => (k === SLICES ? rows : Math.floor((rows * k) / SLICES / SLICE_ALIGN) * SLICE_ALIGN);
  const start = bound(slice);
  const end = bound(slice + 1);
  const out: Page[] = [];
  let offset = 0;
  for (const page of split.pages) {
    const from = Math.max(start, offset) - offset;
    const to = Math.min(end, offset + page.length) - offset;
    offset += page.length;
    if (from >= to) continue;
    const projected = projectPage(page, columns);
    out.push(pageRowRange(projected, from, to) ?? { length: to - from, columns: projected.columns.map((c) => sliceColumn(c, from, to - from)) });
  }
  return out;
}

/**
 * A pipeline fed by several splits is finished once its aggregation holds more groups than this.
 * Large enough for a worker's share of sf1's customers: Q13's partial count per custkey over
 * orders was handed on at every split at 16k groups (531k rows out of 1.48M, 405 ms of partial
 * and 42 ms of final aggregation); at 256k, 199k rows out, 94 and 27 ms.
 */
export const MERGED_AGGREGATION_MAX_GROUPS = 1 << 18;

/**
 * A driver's output pages on SharedArrayBuffers (operators gather into ordinary memory), so they
 * leave this thread by reference.
 */
function shareOutput(result: DriverResult): DriverResult {
  return { ...result, pages: result.pages.map(sharedPage) };
}

/** A scan driver over one split: cached pages, or columns generated now. */
function runScan(fragment: FragmentSpec, split: Split, joins: Readonly<Record<number, JoinTable>>, textPool: Uint8Array | undefined): DriverOutcome {
  const { pages, generated } = scanPages(fragment, split, textPool);
  return { result: shareOutput(runPipeline(fragment, pages, joins)), generated };
}

function scanColumns(fragment: FragmentSpec): readonly number[] {
  if (fragment.source.kind !== 'scan') throw new Error('a split needs a scan fragment');
  return fragment.source.columns;
}

/** A split's pages as the scan reads them (its columns), generating what is not cached yet. */
function scanPages(fragment: FragmentSpec, split: Split, textPool: Uint8Array | undefined): { pages: Page[]; generated?: GeneratedColumns } {
  const columns = scanColumns(fragment);
  if (split.kind === 'pages') return { pages: split.pages.map((p) => projectPage(p, columns)) };
  if (split.connector !== 'tpch') throw new Error(`no generator for connector ${split.connector}`);
  if (!textPoolReady() && textPool) installTextPool(textPool);
  // Generate only the missing columns; combined with the cached ones they make the scan's page.
  const generated = generateTpchSplit(split.descriptor as TpchSplit, split.columns);
  const full: (Column | undefined)[] = [...split.cached];
  split.columns.forEach((c, k) => (full[c] = generated.columns[k]));
  const page: Page = { length: generated.length, columns: full as Column[] };
  return {
    pages: [projectPage(page, columns)],
    generated: { cacheKey: split.cacheKey, length: generated.length, positions: split.columns, columns: generated.columns },
  };
}

export default runWorkerRequest;
