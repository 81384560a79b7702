// Wire formats shared by every resource: airlift-style durations (`12.34ms`) and data sizes
// (`1.50kB`), and ISO 8601 timestamps with milliseconds. Parsing accepts what formatting
// produces plus the short forms used in configuration and query parameters (`500ms`, `16MB`).

/** Duration units from smallest to largest, with their length in milliseconds (airlift's TimeUnit order). */
const DURATION_UNITS: ReadonlyArray<readonly [unit: string, ms: number]> = [
  ['ns', 1e-6],
  ['us', 1e-3],
  ['ms', 1],
  ['s', 1_000],
  ['m', 60_000],
  ['h', 3_600_000],
  ['d', 86_400_000],
];
const DURATION_MS = new Map(DURATION_UNITS);

/**
 * Formats a duration given in milliseconds like airlift's `Duration.toString()`: the largest unit in
 * which the value is at least 1 (with airlift's 0.9999 tolerance for rounding), two decimals.
 * `12.345` → `12.35ms`, `1234` → `1.23s`, `0.005` → `5.00us`, `0` → `0.00ns`. Negative or
 * non-finite input is treated as 0 (a clock step must not break a stats reply).
 */
export function formatDuration(ms: number): string {
  const value = Number.isFinite(ms) && ms > 0 ? ms : 0;
  let unit = DURATION_UNITS[0]!;
  for (const candidate of DURATION_UNITS) {
    if (value / candidate[1] > 0.9999) unit = candidate;
    else break;
  }
  return `${(value / unit[1]).toFixed(2)}${unit[0]}`;
}

const DURATION_PATTERN = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*([a-zA-Z]+)\s*$/;

/** Parses `500ms`, `2s`, `1.5m`, `10.00us`, `1h`, `1d` into milliseconds; throws RangeError on anything else. */
export function parseDuration(text: string): number {
  const match = DURATION_PATTERN.exec(text);
  const factor = match ? DURATION_MS.get(match[2]!) : undefined;
  if (!match || factor === undefined) {
    throw new RangeError(`duration is not valid: '${text}' (expected a number and one of ns, us, ms, s, m, h, d, e.g. 500ms)`);
  }
  return Number(match[1]) * factor;
}

/** Data size units, each 1024 times the previous (airlift's DataSize.Unit). */
const SIZE_UNITS: ReadonlyArray<readonly [unit: string, bytes: number]> = [
  ['B', 1],
  ['kB', 1024],
  ['MB', 1024 ** 2],
  ['GB', 1024 ** 3],
  ['TB', 1024 ** 4],
  ['PB', 1024 ** 5],
];
const SIZE_BYTES = new Map(SIZE_UNITS.map(([unit, bytes]) => [unit.toLowerCase(), bytes] as const));

/**
 * Formats a byte count like airlift's `DataSize.succinct()`: the largest unit not above the value;
 * bytes as an integer, larger units with two decimals. `123` → `123B`, `1536` → `1.50kB`,
 * `2 * 1024 ** 2` → `2.00MB`.
 */
export function formatDataSize(bytes: number): string {
  const value = Number.isFinite(bytes) && bytes > 0 ? bytes : 0;
  let unit = SIZE_UNITS[0]!;
  for (const candidate of SIZE_UNITS) {
    if (candidate[1] <= value) unit = candidate;
    else break;
  }
  return unit[1] === 1 ? `${Math.round(value)}B` : `${(value / unit[1]).toFixed(2)}${unit[0]}`;
}

const SIZE_PATTERN = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*([a-zA-Z]+)\s*$/;

/**
 * Parses `16MB`, `1.50kB`, `123B`, `1GB` into bytes (rounded to an integer). Units are binary
 * (kB = 1024 B) as in airlift and matched without regard to case (`1gb`, `16KB` work too).
 */
export function parseDataSize(text: string): number {
  const match = SIZE_PATTERN.exec(text);
  const factor = match ? SIZE_BYTES.get(match[2]!.toLowerCase()) : undefined;
  if (!match || factor === undefined) {
    throw new RangeError(`data size is not valid: '${text}' (expected a number and one of B, kB, MB, GB, TB, PB, e.g. 16MB)`);
  }
  return Math.round(Number(match[1]) * factor);
}

/** ISO 8601 with milliseconds in UTC, e.g. `2026-11-21T10:11:12.345Z`. */
export function isoTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}
