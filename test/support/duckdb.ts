// DuckDB as the reference engine; the loader and the result comparison live in src/fuzz/duckdb.ts
// (the differential fuzzer, `npm run fuzz`, uses them too).
export { SHARED_TPCH, diffResults, duckRows, tpchDuckDb } from '../../src/fuzz/duckdb.js';
