// The tpch connector's data generator: dbgen 2.17's rows, byte for byte, as columnar pages or as
// .tbl text. See the files it re-exports for the parts (rng, distributions, text pool, one
// generator per table, splits, .tbl writer).

export { TPCH_TABLES, TPCH_TABLE_NAMES, tpchTable } from './schema.js';
export type { TblFormat, TpchColumn, TpchTable, TpchTableName } from './schema.js';
export { tpchRowCount, tpchSplits, tpchUnitCount } from './splits.js';
export type { TpchSplit } from './splits.js';
export { generateTpchSplit } from './generate.js';
export { formatTblRows, tblChunks, writeTbl } from './tbl-writer.js';
export type { TblWriteResult } from './tbl-writer.js';
export { TPCH_DICTIONARIES } from './dictionaries.js';
export type { TpchDictionary } from './dictionaries.js';
export { tpchScale } from './scale.js';
export type { TpchScale } from './scale.js';
export { installTextPool, textPool, textPoolReady, TEXT_POOL_SIZE } from './text-pool.js';
