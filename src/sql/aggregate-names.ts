// The names of the aggregate functions, for the parser's rewrites (parse.ts) and the binder.

export const AGGREGATE_NAMES: ReadonlySet<string> = new Set([
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'bool_and',
  'bool_or',
  'every',
  'arbitrary',
  'any_value',
  'stddev',
  'stddev_samp',
  'stddev_pop',
  'variance',
  'var_samp',
  'var_pop',
  'approx_distinct',
  'count_if',
  'max_by',
  'min_by',
]);
