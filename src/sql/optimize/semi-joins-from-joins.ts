// semi_joins_from_joins: a semi join into a side whose key is unique yields, per probe row, what
// an inner join with the same side yields (each row once, when it has a partner). Where the plan
// holds such an inner join over the same rows already, the semi join is replaced by a projection
// of it, and the join, now occurring twice, is computed once (fragment.ts: a repeated join is a
// stage both uses read). Q17 compares each lineitem of 204 parts with the average quantity of
// that part's lineitems: the average is over `lineitem SEMI JOIN part`, the comparison over
// `lineitem JOIN part`; lineitem is then scanned and probed once instead of twice.
//
// Runs after prune_columns: the two scans of the probe side may read different columns; the
// join's scan must read every column the semi join's side outputs.

import { columnRef, mapChildren, type Expr } from '../ir.js';
import { columnOrigin, planText, type PlanNode } from '../plan.js';
import { nodesOfKind, rewriteSharing } from './walk.js';

type Join = PlanNode & { kind: 'join' };
type Scan = PlanNode & { kind: 'scan' };

/** A node's output columns as expressions over the scan below its projections and filters, if that is what it is. */
function overScan(node: PlanNode): { scan: Scan; exprs: readonly Expr[]; filtered: boolean } | null {
  if (node.kind === 'scan') return { scan: node, exprs: node.fields.map((f, i) => columnRef(i, f.type)), filtered: false };
  if (node.kind === 'filter') {
    const inner = overScan(node.input);
    return inner === null ? null : { ...inner, filtered: true };
  }
  if (node.kind !== 'project') return null;
  const inner = overScan(node.input);
  if (inner === null) return null;
  const substitute = (e: Expr): Expr => (e.kind === 'column' ? inner.exprs[e.index] : mapChildren(e, substitute));
  return { ...inner, exprs: node.exprs.map(substitute) };
}

/** The scan's table column an output expression reads unchanged, if it is a plain column. */
function tableColumn(scan: Scan, e: Expr): number | undefined {
  return e.kind === 'column' ? scan.columns[e.index] : undefined;
}

/** Whether `node` yields each value of column `key` at most once: a scan's one-column primary key, under filters and projections only. */
function uniqueOn(node: PlanNode, key: number): boolean {
  const chain = overScan(node);
  const origin = columnOrigin(node, key);
  const pk = origin?.scan.table.primaryKey;
  return chain !== null && origin !== null && pk !== undefined && pk.length === 1 && pk[0] === origin.column;
}

/** The scan without its column choice, as text: two scans of the same table compare equal. */
function scanText(scan: Scan): string | undefined {
  return planText({ ...scan, columns: [], fields: [] });
}

/**
 * `semi` as a projection of `join`, when both probe the same unfiltered scan (the join's reading
 * every column the semi join's probe side outputs) into the same build side on the same keys.
 */
function asProjection(semi: Join, join: Join): PlanNode | null {
  if (join.joinType !== 'inner' || join.filter !== null || join.singleMatch || join.markLeft || join.leftKeys.length !== semi.leftKeys.length) return null;
  const probe = overScan(semi.left);
  const joined = overScan(join.left);
  if (probe === null || joined === null || probe.filtered || joined.filtered) return null;
  if (scanText(probe.scan) !== scanText(joined.scan) || planText(semi.right) !== planText(join.right)) return null;
  // Where the join's probe side outputs each table column it passes through unchanged.
  const positions = new Map<number, number>();
  joined.exprs.forEach((e, p) => {
    const c = tableColumn(joined.scan, e);
    if (c !== undefined && !positions.has(c)) positions.set(c, p);
  });
  const keysAgree = semi.leftKeys.every((k, i) => {
    const c = tableColumn(probe.scan, probe.exprs[k]);
    return c !== undefined && positions.get(c) === join.leftKeys[i] && semi.rightKeys[i] === join.rightKeys[i];
  });
  if (!keysAgree) return null;
  const exprs: Expr[] = [];
  for (const e of probe.exprs) {
    let missing = false;
    const remap = (x: Expr): Expr => {
      if (x.kind !== 'column') return mapChildren(x, remap);
      const p = positions.get(probe.scan.columns[x.index]);
      if (p === undefined) missing = true;
      return columnRef(p ?? 0, x.type);
    };
    exprs.push(remap(e));
    if (missing) return null;
  }
  return { kind: 'project', input: join, exprs, fields: semi.fields };
}

export function semiJoinsFromJoins(plan: PlanNode): PlanNode {
  const joins = nodesOfKind(plan, 'join');
  const rewrites = new Map<PlanNode, PlanNode>();
  for (const semi of joins) {
    if (semi.joinType !== 'semi' || semi.filter !== null || semi.nullAware || semi.markLeft || semi.rightKeys.length !== 1 || !uniqueOn(semi.right, semi.rightKeys[0])) continue;
    for (const join of joins) {
      const projection = join === semi ? null : asProjection(semi, join);
      if (projection === null) continue;
      rewrites.set(semi, projection);
      break;
    }
  }
  return rewriteSharing(plan, rewrites, (projection) => (projection as PlanNode & { kind: 'project' }).input);
}
