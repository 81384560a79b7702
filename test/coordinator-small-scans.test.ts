// A scan of a small table (at most 1M rows, more splits than workers) runs on claimed splits
// whatever its fragment ends in (execution.ts claimsSplits): here a filter over tpch.sf1.part
// (200k rows, 4 splits) feeding a sort and a join. Every selected row must come out once, as the
// generator made it, whichever worker ran which split.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTpchSplit, tpchSplits } from '../src/connectors/tpch/index.js';
import { numericValues, stringValues } from '../src/exec/column-readers.js';
import { runQueryOk, startServer, type TestServer } from './support/server.js';

/** (partkey, name) of sf1 parts of size 15, from the generator directly. */
function expectedParts(): [number, string][] {
  const out: [number, string][] = [];
  for (const split of tpchSplits('part', 1, 1 << 16)) {
    const page = generateTpchSplit(split, [0, 1, 5]);
    const keys = numericValues(page.columns[0]);
    const names = stringValues(page.columns[1]);
    const sizes = numericValues(page.columns[2]); // the generated columns, in the order asked for
    for (let r = 0; r < page.length; r++) if (sizes[r] === 15) out.push([keys[r], names[r]]);
  }
  return out.sort((a, b) => a[0] - b[0]);
}

describe('small scans on claimed splits', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ workers: 2 });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('a filtered scan of sf1 part returns every selected row once, in the sort asked for', async () => {
    const expected = expectedParts();
    expect(expected.length).toBeGreaterThan(3000);
    const r = await runQueryOk(server.baseUrl, 'select partkey, name from tpch.sf1.part where size = 15 order by partkey');
    expect(r.rows.map((row) => [Number(row[0]), row[1]])).toEqual(expected);
  });

  it('the same rows through a join with a small build side', async () => {
    const expected = expectedParts().filter(([key]) => key % 7 === 0).length;
    const r = await runQueryOk(
      server.baseUrl,
      'select count(*) from tpch.sf1.part p join (select partkey from tpch.sf1.part where size = 15 and partkey % 7 = 0) k on p.partkey = k.partkey',
    );
    expect(Number(r.rows[0][0])).toBe(expected);
  });
});
