// One dictionary per low-cardinality text column, built once per process and shared by every
// split, so operators can group and compare on the indices. Each dictionary is sorted ascending,
// so comparing indices orders rows the same way as comparing the strings.

import { varcharColumnOf, type VarcharColumn } from '../../data/page.js';
import { varchar, type SqlType } from '../../data/types.js';
import {
  MARKET_SEGMENTS,
  NATIONS,
  ORDER_PRIORITIES,
  PART_CONTAINERS,
  PART_TYPES,
  REGIONS,
  SHIP_INSTRUCTIONS,
  SHIP_MODES,
  type Distribution,
} from './distributions.js';

export interface TpchDictionary {
  readonly type: SqlType;
  /** The shared Utf8 column every DictionaryColumn of this column points at. */
  readonly column: VarcharColumn;
  /** The values in dictionary (sorted) order. */
  readonly values: readonly string[];
  /** Each value's ASCII bytes, in dictionary order (for the .tbl writer). */
  readonly bytes: readonly Uint8Array[];
}

function dictionary(type: SqlType, values: readonly string[]): TpchDictionary {
  const sorted = [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    type,
    column: varcharColumnOf(type, sorted),
    values: sorted,
    bytes: sorted.map((v) => Buffer.from(v, 'latin1')),
  };
}

/** Dictionary index of each of a distribution's values, in distribution order. */
export function codesOf(dict: TpchDictionary, dist: Distribution): Int32Array {
  return Int32Array.from(dist.values, (v) => {
    const i = dict.values.indexOf(v);
    if (i < 0) throw new Error(`'${v}' missing from dictionary`);
    return i;
  });
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

export const REGION_NAMES = dictionary(varchar(25), REGIONS.values);
export const NATION_NAMES = dictionary(varchar(25), NATIONS.values);
export const MARKET_SEGMENT_DICT = dictionary(varchar(10), MARKET_SEGMENTS.values);
export const MANUFACTURERS = dictionary(
  varchar(25),
  range(1, 5).map((m) => `Manufacturer#${m}`),
);
/** Brand#MN: M the manufacturer, N 1..5. Sorted order is (M - 1) * 5 + (N - 1). */
export const BRANDS = dictionary(
  varchar(10),
  range(1, 5).flatMap((m) => range(1, 5).map((n) => `Brand#${m}${n}`)),
);
export const PART_TYPE_DICT = dictionary(varchar(25), PART_TYPES.values);
export const CONTAINER_DICT = dictionary(varchar(10), PART_CONTAINERS.values);
export const ORDER_STATUSES = dictionary(varchar(1), ['F', 'O', 'P']);
export const ORDER_PRIORITY_DICT = dictionary(varchar(15), ORDER_PRIORITIES.values);
export const RETURN_FLAG_DICT = dictionary(varchar(1), ['R', 'A', 'N']);
export const LINE_STATUSES = dictionary(varchar(1), ['F', 'O']);
export const SHIP_INSTRUCT_DICT = dictionary(varchar(25), SHIP_INSTRUCTIONS.values);
export const SHIP_MODE_DICT = dictionary(varchar(10), SHIP_MODES.values);

/** Every dictionary-encoded column, by table and column name. */
export const TPCH_DICTIONARIES: Readonly<Record<string, Readonly<Record<string, TpchDictionary>>>> = {
  region: { name: REGION_NAMES },
  nation: { name: NATION_NAMES },
  customer: { mktsegment: MARKET_SEGMENT_DICT },
  part: { mfgr: MANUFACTURERS, brand: BRANDS, type: PART_TYPE_DICT, container: CONTAINER_DICT },
  orders: { orderstatus: ORDER_STATUSES, orderpriority: ORDER_PRIORITY_DICT },
  lineitem: {
    returnflag: RETURN_FLAG_DICT,
    linestatus: LINE_STATUSES,
    shipinstruct: SHIP_INSTRUCT_DICT,
    shipmode: SHIP_MODE_DICT,
  },
};
