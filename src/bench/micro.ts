// tinybench micro benchmarks of the executor's kernels on one thread: the leaf pipeline the planner
// makes for a query (the same FragmentSpec a worker runs), over one generated lineitem page, with
// and without the WebAssembly kernels.
import { Bench } from 'tinybench';
import { CatalogRegistry } from '../connectors/catalog.js';
import { TpchConnector } from '../connectors/tpch/connector.js';

/** The micro benchmarks time one 64Ki-row lineitem page. */
const MICRO_PAGE_ROWS = 1 << 16;
import { generateTpchSplit, tpchSplits } from '../connectors/tpch/index.js';
import { runPipeline } from '../exec/pipeline.js';
import { createArena, installArena } from '../data/arena.js';
import { setWasmKernels } from '../exec/compile/wasm-kernels.js';
import { analyzeQuery } from '../sql/analyze.js';
import { fragmentPlan } from '../sql/fragment.js';
import { parseStatement } from '../sql/parse.js';

export interface MicroResult {
  readonly name: string;
  readonly rowsPerRun: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly rowsPerSecond: number;
  readonly samples: number;
  readonly error?: string;
}

/** `wasm`: whether a WebAssembly kernel applies (then it also runs with the JS kernels, to compare). */
const KERNELS: readonly { name: string; sql: string; wasm?: boolean }[] = [
  {
    name: 'filter+project (Q1 predicate, disc_price)',
    sql: "select extendedprice * (1 - discount) as disc_price, quantity from lineitem where shipdate <= date '1998-09-02'",
    wasm: true,
  },
  {
    name: 'Q6 leaf (filter + global sum)',
    sql: "select sum(extendedprice * discount) from lineitem where shipdate >= date '1994-01-01' and shipdate < date '1995-01-01' and discount between 0.05 and 0.07 and quantity < 24",
    wasm: true,
  },
  {
    name: 'Q1 leaf (filter + hash agg, 4 groups)',
    sql: "select returnflag, linestatus, sum(quantity), sum(extendedprice), sum(extendedprice * (1 - discount)), sum(extendedprice * (1 - discount) * (1 + tax)), avg(quantity), avg(discount), count(*) from lineitem where shipdate <= date '1998-09-02' group by returnflag, linestatus",
    wasm: true,
  },
  { name: 'hash agg, high cardinality (group by orderkey)', sql: 'select orderkey, sum(quantity), count(*) from lineitem group by orderkey' },
];

/**
 * Each kernel over one generated page in a column arena, as the server's workers hold it (so the
 * WebAssembly kernels run where they apply), and again with WebAssembly off (the JS kernels).
 */
export async function microBenchmarks(timeMs = 400): Promise<MicroResult[]> {
  const catalogs = new CatalogRegistry();
  catalogs.register('tpch', new TpchConnector());
  const split = tpchSplits('lineitem', 1, MICRO_PAGE_ROWS)[0];
  const results: MicroResult[] = [];
  installArena(createArena());
  try {
    for (const k of KERNELS) {
      for (const wasm of k.wasm ? [true, false] : [true]) {
        const name = wasm ? k.name : `${k.name}, JS kernels`;
        setWasmKernels(wasm);
        try {
          results.push({ name, ...(await timeKernel(k.sql, catalogs, split, timeMs)) });
        } catch (error) {
          results.push({ name, rowsPerRun: 0, meanMs: NaN, p50Ms: NaN, rowsPerSecond: NaN, samples: 0, error: error instanceof Error ? error.message : String(error) });
        }
      }
    }
  } finally {
    setWasmKernels(true);
    installArena(null);
  }
  return results;
}

async function timeKernel(sql: string, catalogs: CatalogRegistry, split: ReturnType<typeof tpchSplits>[number], timeMs: number): Promise<Omit<MicroResult, 'name'>> {
  const statement = parseStatement(sql);
  if (statement.kind !== 'query') throw new Error('not a query');
  const plan = fragmentPlan(analyzeQuery(statement.ast, { catalogs, catalog: 'tpch', schema: 'sf1', sql, now: Date.now() }));
  const leaf = plan.stages.find((s) => s.fragment.source.kind === 'scan');
  if (!leaf || leaf.fragment.source.kind !== 'scan') throw new Error('no scan stage');
  const page = generateTpchSplit(split, leaf.fragment.source.columns);
  const fragment = leaf.fragment;
  runPipeline(fragment, [page]); // compile the kernels once
  const bench = new Bench({ time: timeMs, warmupTime: 100 });
  bench.add(sql, () => {
    runPipeline(fragment, [page]);
  });
  await bench.run();
  const r = bench.tasks[0].result;
  if (r.state !== 'completed') throw new Error(`tinybench: ${r.state}`);
  return { rowsPerRun: page.length, meanMs: r.latency.mean, p50Ms: r.latency.p50, rowsPerSecond: page.length / (r.latency.mean / 1000), samples: r.latency.samplesCount };
}
