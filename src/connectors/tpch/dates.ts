// dbgen's dates: a day number counted from 1992-01-01 (dbgen's 92001), spanning 2557 days to the
// end of 1998. A date is "in the past" (shipped, returnable) when it is on or before dbgen's
// CURRENT_DATE, 1995-06-17. Columns hold days since 1970-01-01.

/** dbgen's first date (1992-01-01) as days since 1970-01-01. */
export const MIN_DATE_EPOCH_DAY = 8035;
/** Number of days dbgen's dates can take (1992-01-01 .. 1998-12-31). */
export const TOTAL_DATE_RANGE = 2557;
/** dbgen's CURRENT_DATE, 1995-06-17, as days since 1970-01-01. */
export const CURRENT_DATE_EPOCH_DAY = 9298;

/** dbgen's generated date index (92001 = 1992-01-01) → days since 1970-01-01. */
export const GENERATED_DATE_EPOCH_OFFSET = 83966;
export const MIN_GENERATE_DATE = 92001;

/** 'YYYY-MM-DD' for each dbgen date, as 10 ASCII bytes per day, starting at 1992-01-01. */
export const DATE_TEXT: Uint8Array = (() => {
  const out = new Uint8Array(TOTAL_DATE_RANGE * 10);
  for (let i = 0; i < TOTAL_DATE_RANGE; i++) {
    const iso = new Date((MIN_DATE_EPOCH_DAY + i) * 86_400_000).toISOString().slice(0, 10);
    for (let k = 0; k < 10; k++) out[i * 10 + k] = iso.charCodeAt(k);
  }
  return out;
})();
