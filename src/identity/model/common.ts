// Body parsing and validation shared by every resource: JSON text → schema → typed value, with
// Keycloak's 400 bodies on failure (nothing is changed when this throws).
import type { z } from 'zod';
import { ERR, errorMessage } from '../errors.js';

export function parseJson(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw ERR.badJson();
  }
}

export function validate<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const fieldOf = (path: readonly PropertyKey[]) => path.filter((p) => typeof p === 'string').join('.');
  const field = issue ? fieldOf(issue.path) : undefined;
  // A value longer than its column: Keycloak's length validator body (the field, then the maximum).
  const tooLong = issue?.code === 'too_big' && issue.origin === 'string' ? { issue, path: issue.path }
    : issue?.code === 'invalid_key' && issue.issues[0]?.code === 'too_big' ? { issue: issue.issues[0], path: issue.path.slice(0, -1) } : undefined;
  if (tooLong) {
    const name = fieldOf(tooLong.path);
    throw errorMessage(400, 'error-invalid-length-too-long', { field: name, params: [name, Number((tooLong.issue as { maximum: unknown }).maximum)] });
  }
  throw ERR.badJson(field || undefined);
}

export function parseBody<T>(schema: z.ZodType<T>, body: Buffer): T {
  const v = parseJson(body);
  if (v === undefined || v === null) throw ERR.badJson();
  return validate(schema, v);
}

/** Copies defined (non-null) values; null in a representation means "not given" as in Keycloak. */
export function defined<T extends object>(rep: T): Partial<{ [K in keyof T]: NonNullable<T[K]> }> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rep)) if (v !== undefined && v !== null) out[k] = v;
  return out as Partial<{ [K in keyof T]: NonNullable<T[K]> }>;
}

export function cleanStrMap(m: Record<string, string | null> | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(m ?? {})) if (v !== null && v !== undefined) out[k] = v;
  return out;
}

export function cleanMultiMap(m: Record<string, string[] | null> | null | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(m ?? {})) if (v !== null && v !== undefined) out[k] = v;
  return out;
}
