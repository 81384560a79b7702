// Do our rows agree with DuckDB's? Numbers within a relative tolerance (sums of doubles differ in
// the last bits with summation order), everything else exactly; unordered results compared sorted.

function normalize(v: unknown): unknown {
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/u.test(v)) return Number(v);
  if (typeof v === 'bigint') return Number(v);
  return v;
}

function close(a: unknown, b: unknown, relTol: number): boolean {
  const x = normalize(a);
  const y = normalize(b);
  if (typeof x === 'number' && typeof y === 'number') {
    return x === y || Math.abs(x - y) <= relTol * Math.max(Math.abs(x), Math.abs(y), 1e-300);
  }
  return x === y;
}

function rowKey(row: readonly unknown[]): string {
  return JSON.stringify(
    row.map((v) => {
      const n = normalize(v);
      return typeof n === 'number' ? Number(n.toPrecision(8)) : n;
    }),
  );
}

/** The first difference, or undefined when the results agree. */
export function diffRows(ours: readonly unknown[][], theirs: readonly unknown[][], relTol = 1e-6): string | undefined {
  if (ours.length !== theirs.length) return `${ours.length} rows vs DuckDB's ${theirs.length}`;
  const sorted = (rows: readonly unknown[][]) => [...rows].sort((x, y) => rowKey(x).localeCompare(rowKey(y)));
  const a = sorted(ours);
  const b = sorted(theirs);
  for (let i = 0; i < a.length; i++) {
    if (a[i].length !== b[i].length) return `row ${i}: ${a[i].length} columns vs DuckDB's ${b[i].length}`;
    for (let j = 0; j < a[i].length; j++) {
      if (!close(a[i][j], b[i][j], relTol)) return `row ${i} column ${j}: ${JSON.stringify(a[i][j])} vs DuckDB's ${JSON.stringify(b[i][j])}`;
    }
  }
  return undefined;
}
