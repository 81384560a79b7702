// The functions SHOW FUNCTIONS lists: scalar ones by signature (with the return type their
// resolution gives for the listed argument types, where those are concrete), then aggregates and
// window functions by name.

import { typeDisplayName, type SqlType } from '../data/types.js';
import { AGGREGATE_NAMES } from './aggregate-names.js';
import { parseTypeName, WINDOW_FUNCTION_NAMES } from './analyze.js';
import { scalarFunctionSignatures } from './functions.js';

export interface FunctionListing {
  readonly name: string;
  readonly returnType: string;
  readonly argumentTypes: string;
  readonly kind: 'scalar' | 'aggregate' | 'window';
  readonly deterministic: boolean;
}

/** Functions the binder handles itself (not in the resolution table). */
const SPECIAL_SCALARS: readonly FunctionListing[] = [
  { name: 'coalesce', returnType: '', argumentTypes: 'T, ...', kind: 'scalar', deterministic: true },
  { name: 'if', returnType: '', argumentTypes: 'boolean, T, T', kind: 'scalar', deterministic: true },
  { name: 'try_cast', returnType: '', argumentTypes: 'x AS type', kind: 'scalar', deterministic: true },
  { name: 'typeof', returnType: 'varchar', argumentTypes: 'T', kind: 'scalar', deterministic: true },
];

function concreteType(text: string): SqlType | undefined {
  const m = /^([a-z ]+)(?:\((\d+)(?:,\s*(\d+))?\))?$/u.exec(text.trim());
  return m ? parseTypeName(m[1], m[2] === undefined ? undefined : Number(m[2]), m[3] === undefined ? undefined : Number(m[3])) : undefined;
}

export function functionList(): FunctionListing[] {
  const scalars: FunctionListing[] = scalarFunctionSignatures().map(({ name, signature, result }) => {
    const argText = /\((.*)\)$/u.exec(signature)?.[1] ?? '';
    const argNames = argText === '' ? [] : argText.split(/,\s*(?![^(]*\))/u);
    const argTypes = argNames.map(concreteType);
    const returned = argTypes.every((t): t is SqlType => t !== undefined) ? result(argTypes) : undefined;
    return { name, returnType: returned ? typeDisplayName(returned) : '', argumentTypes: argNames.join(', '), kind: 'scalar', deterministic: name !== 'random' && name !== 'rand' };
  });
  const aggregates: FunctionListing[] = [...AGGREGATE_NAMES].map((name) => ({ name, returnType: '', argumentTypes: '', kind: 'aggregate', deterministic: true }));
  const windows: FunctionListing[] = WINDOW_FUNCTION_NAMES.map((name) => ({ name, returnType: '', argumentTypes: '', kind: 'window', deterministic: true }));
  const all = [...scalars, ...SPECIAL_SCALARS, ...aggregates, ...windows];
  return all.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.argumentTypes < b.argumentTypes ? -1 : 1));
}
