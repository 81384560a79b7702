// tinybench micro benchmarks of the executor's kernels on one thread: the leaf pipeline the planner
// makes for a query (the same FragmentSpec a worker runs), over one generated lineitem page.
import { Bench } from 'tinybench';
import { CatalogRegistry } from '../connectors/catalog.js';
import { TpchConnector } from '../connectors/tpch/connector.js';

/** The micro benchmarks time one 64Ki-row lineitem page. */
const MICRO_PAGE_ROWS = 1 << 16;
import { generateTpchSplit, tpchSplits } from '../connectors/tpch/index.js';
import { runPipeline } from '../exec/pipeline.js';
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

const KERNELS: readonly { name: string; sql: string }[] = [
  {
    name: 'filter+project (Q1 predicate, disc_price)',
    sql: "select extendedprice * (1 - discount) as disc_price, quantity from lineitem where shipdate <= date '1998-09-02'",
  },
  {
    name: 'Q6 leaf (filter + global sum)',
    sql: "select sum(extendedprice * discount) from lineitem where shipdate >= date '1994-01-01' and shipdate < date '1995-01-01' and discount between 0.05 and 0.07 and quantity < 24",
  },
  {
    name: 'Q1 leaf (filter + hash agg, 4 groups)',
    sql: "select returnflag, linestatus, sum(quantity), sum(extendedprice), sum(extendedprice * (1 - discount)), sum(extendedprice * (1 - discount) * (1 + tax)), avg(quantity), avg(discount), count(*) from lineitem where shipdate <= date '1998-09-02' group by returnflag, linestatus",
  },
  { name: 'hash agg, high cardinality (group by orderkey)', sql: 'select orderkey, sum(quantity), count(*) from lineitem group by orderkey' },
];

export async function microBenchmarks(timeMs = 400): Promise<MicroResult[]> {
  const catalogs = new CatalogRegistry();
  catalogs.register('tpch', new TpchConnector());
  const split = tpchSplits('lineitem', 1, MICRO_PAGE_ROWS)[0];
  const results: MicroResult[] = [];
  for (const k of KERNELS) {
    try {
      const statement = parseStatement(k.sql);
      if (statement.kind !== 'query') throw new Error('not a query');
      const plan = fragmentPlan(analyzeQuery(statement.ast, { catalogs, catalog: 'tpch', schema: 'sf1', sql: k.sql, now: Date.now() }));
      const leaf = plan.stages.find((s) => s.fragment.source.kind === 'scan');
      if (!leaf || leaf.fragment.source.kind !== 'scan') throw new Error('no scan stage');
      const page = generateTpchSplit(split, leaf.fragment.source.columns);
      const fragment = leaf.fragment;
      runPipeline(fragment, [page]); // compile the kernels once
      const bench = new Bench({ time: timeMs, warmupTime: 100 });
      bench.add(k.name, () => {
        runPipeline(fragment, [page]);
      });
      await bench.run();
      const r = bench.tasks[0].result;
      if (r.state !== 'completed') throw new Error(`tinybench: ${r.state}`);
      results.push({
        name: k.name,
        rowsPerRun: page.length,
        meanMs: r.latency.mean,
        p50Ms: r.latency.p50,
        rowsPerSecond: page.length / (r.latency.mean / 1000),
        samples: r.latency.samplesCount,
      });
    } catch (error) {
      results.push({ name: k.name, rowsPerRun: 0, meanMs: NaN, p50Ms: NaN, rowsPerSecond: NaN, samples: 0, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return results;
}
