import type { Column } from '../../data/page.js';

/** A generator's output: one entry per table column, null where the column was not asked for. */
export interface Generated {
  readonly length: number;
  readonly columns: (Column | null)[];
}
