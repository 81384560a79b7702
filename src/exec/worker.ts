// Piscina entry: runs one driver (a fragment's pipeline over one split or one batch of exchanged
// pages) on a worker thread. Pages in and out are SharedArrayBuffer-backed, so nothing is copied.
// Errors come back as data: structured clone would drop an EngineError's code.

import { generateTpchSplit, installTextPool, textPoolReady, TEXT_POOL_SIZE, type TpchSplit } from '../connectors/tpch/index.js';
import { buildTextPool } from '../connectors/tpch/text-pool.js';
import type { Split } from '../connectors/catalog.js';
import type { Column, Page } from '../data/page.js';
import { toEngineError, type SerializedEngineError } from '../util/engine-error.js';
import { runPipeline, type DriverResult } from './pipeline.js';
import type { FragmentSpec } from './specs.js';
import { buildJoinTable, type JoinTable } from './join-table.js';
import type { SqlType } from '../data/types.js';

export type WorkerRequest =
  | {
      readonly kind: 'driver';
      readonly fragment: FragmentSpec;
      readonly split?: Split;
      readonly pages?: readonly Page[];
      readonly textPool?: Uint8Array;
      readonly joins?: Readonly<Record<number, JoinTable>>;
    }
  | { readonly kind: 'buildJoin'; readonly pages: readonly Page[]; readonly types: readonly SqlType[]; readonly keys: readonly number[]; readonly trackMatches: boolean }
  | { readonly kind: 'buildTextPool' };

export type WorkerResponse =
  | {
      readonly ok: true;
      readonly result: DriverResult;
      /** Columns generated for a split (table positions), for the coordinator's cache. */
      readonly generated?: { readonly cacheKey: string; readonly length: number; readonly positions: readonly number[]; readonly columns: readonly Column[] };
    }
  | { readonly ok: true; readonly textPool: Uint8Array }
  | { readonly ok: true; readonly joinTable: JoinTable }
  | { readonly ok: false; readonly error: SerializedEngineError };

function project(page: Page, columns: readonly number[]): Page {
  return { length: page.length, columns: columns.map((c) => page.columns[c]) };
}

export function runWorkerRequest(req: WorkerRequest): WorkerResponse {
  try {
    if (req.kind === 'buildTextPool') return { ok: true, textPool: buildTextPool(TEXT_POOL_SIZE) };
    if (req.kind === 'buildJoin') return { ok: true, joinTable: buildJoinTable(req.pages, req.types, req.keys, req.trackMatches) };
    const { fragment } = req;
    const joins = req.joins ?? {};
    if (fragment.source.kind === 'exchange') return { ok: true, result: runPipeline(fragment, req.pages ?? [], joins) };
    const split = req.split;
    if (!split) throw new Error('a scan driver needs a split');
    const columns = fragment.source.columns;
    if (split.kind === 'pages') return { ok: true, result: runPipeline(fragment, split.pages.map((p) => project(p, columns)), joins) };
    if (split.connector !== 'tpch') throw new Error(`no generator for connector ${split.connector}`);
    if (!textPoolReady() && req.textPool) installTextPool(req.textPool);
    // Generate only the missing columns; combined with the cached ones they make the scan's page.
    const generated = generateTpchSplit(split.descriptor as TpchSplit, split.columns);
    const full: (Column | undefined)[] = [...split.cached];
    split.columns.forEach((c, k) => (full[c] = generated.columns[k]));
    const page: Page = { length: generated.length, columns: full as Column[] };
    return {
      ok: true,
      result: runPipeline(fragment, [project(page, columns)], joins),
      generated: { cacheKey: split.cacheKey, length: generated.length, positions: split.columns, columns: generated.columns },
    };
  } catch (e) {
    return { ok: false, error: toEngineError(e).toJSON() };
  }
}

export default runWorkerRequest;
