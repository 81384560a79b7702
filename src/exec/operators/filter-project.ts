// FilterAndProject: one compiled filter loop producing a selection vector, then pass-through columns
// gathered by that selection and computed columns from one fused projection loop.

import type { Column, Page } from '../../data/page.js';
import type { Expr } from '../../sql/ir.js';
import { compileFilter, compileProjection, shapesOf } from '../compile/compile.js';
import { gatherColumn } from '../gather.js';
import { emptyOperatorStats, type OperatorStats } from '../metrics.js';
import { isFilterSink, streamPage, type FilterSink, type Operator, type PageSink, type SelectionSink } from './operator.js';

/**
 * The projections a kernel computes (pass-through columns null), one array per projection list:
 * kernels are cached per expression array, and a cached plan hands the same list to every query.
 */
const computedLists = new WeakMap<readonly Expr[], readonly (Expr | null)[]>();

function computedOf(projections: readonly Expr[]): readonly (Expr | null)[] {
  let computed = computedLists.get(projections);
  if (!computed) {
    computed = projections.map((e) => (e.kind === 'column' ? null : e));
    computedLists.set(projections, computed);
  }
  return computed;
}

export class FilterProjectOperator implements Operator {
  readonly stats: OperatorStats;
  private scratch = new Int32Array(0);
  /** The operator directly downstream, when it takes selected rows without a projected page. */
  private selectionSink: SelectionSink | null = null;
  /** The operator directly downstream, when it may evaluate the filter itself; null once it declined. */
  private filterSink: FilterSink | null = null;
  /** The projections computed by a kernel (pass-through columns null). */
  private readonly computed: readonly (Expr | null)[];

  constructor(
    operatorId: number,
    private readonly filter: Expr | null,
    private readonly projections: readonly Expr[],
    private readonly next: PageSink,
  ) {
    this.stats = emptyOperatorStats(operatorId, 'FilterAndProjectOperator');
    this.computed = computedOf(projections);
  }

  /** Hands selected rows straight to `sink` from now on, whenever it can take them. */
  fuseInto(sink: Operator & SelectionSink): void {
    this.selectionSink = sink;
    if (isFilterSink(sink)) this.filterSink = sink;
  }

  addInput(page: Page): void {
    streamPage(this.stats, page, (p) => this.process(p), this.next);
  }

  process(page: Page): Page | null {
    const shapes = shapesOf(page);
    let sel: Int32Array | null = null;
    let count = page.length;
    if (this.filter !== null && this.filterSink !== null) {
      const done = this.filterSink.addFiltered(page, this.filter, this.projections, shapes);
      if (done !== null) {
        this.countPassedOn(done.nanos, done.kept);
        return null;
      }
      // Declined (its kernel cannot take this filter and these arguments): filter here from now on.
      this.filterSink = null;
    }
    if (this.filter) {
      if (this.scratch.length < page.length) this.scratch = new Int32Array(page.length);
      count = compileFilter(this.filter, shapes)(page.columns, page.length, this.scratch);
      if (count === 0) return null;
      if (count < page.length) sel = this.scratch;
    }
    if (this.selectionSink !== null) {
      const nanos = this.selectionSink.addSelected(page, sel, count, this.projections, shapes);
      if (nanos >= 0) {
        this.countPassedOn(nanos, count);
        return null;
      }
    }
    const columns: (Column | null)[] = this.projections.map((e) => {
      if (e.kind !== 'column') return null;
      const col = page.columns[e.index];
      return sel === null ? col : gatherColumn(col, sel, count);
    });
    if (columns.some((c) => c === null)) {
      const computed = compileProjection(this.computed, shapes)(page.columns, sel, count);
      computed.forEach((c, j) => {
        if (columns[j] === null) columns[j] = c;
      });
    }
    return { length: count, columns: columns as Column[] };
  }

  /** Rows handed downstream without a page: the downstream time is not ours; rows count as if paged. */
  private countPassedOn(downstreamNanos: number, rows: number): void {
    this.stats.addInputNanos -= downstreamNanos;
    this.stats.getOutputCalls++;
    this.stats.outputPositions += rows;
  }

  finish(): void {
    this.stats.finishCalls++;
  }

  isDone(): boolean {
    return false;
  }
}
