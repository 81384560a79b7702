// The user profile (UPConfig): the realm's declared attributes with validations, required roles and
// the unmanaged attribute policy, applied when admins create and update users (DeclarativeUserProfile).
import { z } from 'zod';
import { HttpError, json } from '../../http/types.js';
import type { RealmEntity } from '../store/entities.js';
import type { UserRepresentation } from './schemas.js';

const Validations = z.record(z.string(), z.record(z.string(), z.unknown()));
export const UPAttribute = z.object({
  name: z.string(),
  displayName: z.string().nullish(),
  validations: Validations.nullish(),
  annotations: z.record(z.string(), z.unknown()).nullish(),
  required: z.object({ roles: z.array(z.string()).nullish(), scopes: z.array(z.string()).nullish() }).nullish(),
  permissions: z.object({ view: z.array(z.string()).nullish(), edit: z.array(z.string()).nullish() }).nullish(),
  selector: z.object({ scopes: z.array(z.string()).nullish() }).nullish(),
  group: z.string().nullish(),
  multivalued: z.boolean().nullish(),
});
export const UPConfig = z.object({
  attributes: z.array(UPAttribute).nullish(),
  groups: z.array(z.object({ name: z.string(), displayHeader: z.string().nullish(), displayDescription: z.string().nullish(), annotations: z.record(z.string(), z.unknown()).nullish() })).nullish(),
  unmanagedAttributePolicy: z.enum(['ENABLED', 'ADMIN_VIEW', 'ADMIN_EDIT']).nullish(),
});
export type UPConfig = z.infer<typeof UPConfig>;
export type UPAttribute = z.infer<typeof UPAttribute>;

const perms = { view: ['admin', 'user'], edit: ['admin', 'user'] };
export const DEFAULT_UP_CONFIG: UPConfig = {
  attributes: [
    { name: 'username', displayName: '${username}', validations: { length: { min: 3, max: 255 }, 'username-prohibited-characters': {}, 'up-username-not-idn-homograph': {} }, permissions: perms, multivalued: false },
    { name: 'email', displayName: '${email}', validations: { email: {}, length: { max: 255 } }, required: { roles: ['user'] }, permissions: perms, multivalued: false },
    { name: 'firstName', displayName: '${firstName}', validations: { length: { max: 255 }, 'person-name-prohibited-characters': {} }, required: { roles: ['user'] }, permissions: perms, multivalued: false },
    { name: 'lastName', displayName: '${lastName}', validations: { length: { max: 255 }, 'person-name-prohibited-characters': {} }, required: { roles: ['user'] }, permissions: perms, multivalued: false },
  ],
  groups: [{ name: 'user-metadata', displayHeader: 'User metadata', displayDescription: 'Attributes, which refer to user metadata' }],
  unmanagedAttributePolicy: 'ENABLED',
};

export const VALIDATORS = ['length', 'email', 'pattern', 'options', 'integer', 'double', 'uri', 'person-name-prohibited-characters', 'username-prohibited-characters', 'up-username-not-idn-homograph', 'local-date', 'iso-date', 'multivalued', 'up-attribute-required-by-metadata-value', 'up-immutable-attribute', 'up-duplicate-username', 'up-duplicate-email'];

export function profileOf(realm: RealmEntity): UPConfig {
  return (realm._userProfile as UPConfig | undefined) ?? DEFAULT_UP_CONFIG;
}

const ROOT = new Set(['username', 'email', 'firstName', 'lastName']);

/** Checks a new configuration (400 on an invalid one). */
export function checkConfig(cfg: UPConfig): void {
  const names = new Set<string>();
  const bad = (m: string) => new HttpError(400, json(400, { errorMessage: m }));
  for (const a of cfg.attributes ?? []) {
    if (!/^[A-Za-z0-9._-]+$/.test(a.name)) throw bad(`Invalid attribute name: ${a.name}`);
    if (names.has(a.name)) throw bad(`Duplicated attribute name: ${a.name}`);
    names.add(a.name);
    for (const v of Object.keys(a.validations ?? {})) if (!VALIDATORS.includes(v)) throw bad(`Validator '${v}' of attribute '${a.name}' does not exist`);
    if (a.group && !(cfg.groups ?? []).some((g) => g.name === a.group)) throw bad(`Attribute '${a.name}' references unknown group '${a.group}'`);
  }
  if (!names.has('username') || !names.has('email')) throw bad('The username and email attributes are required in the user profile');
}

interface Err {
  field: string;
  errorMessage: string;
  params: unknown[];
}

function validateValue(attr: string, validator: string, cfg: Record<string, unknown>, v: string): Err | undefined {
  const n = (k: string) => (cfg[k] === undefined ? undefined : Number(cfg[k]));
  switch (validator) {
    case 'length': {
      const min = n('min');
      const max = n('max');
      if ((min !== undefined && v.length < min) || (max !== undefined && v.length > max)) return { field: attr, errorMessage: 'error-invalid-length', params: [attr, min ?? '', max ?? ''] };
      return undefined;
    }
    case 'email':
      return /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(v) ? undefined : { field: attr, errorMessage: 'error-invalid-email', params: [attr, v] };
    case 'pattern':
      return new RegExp(String(cfg.pattern ?? '.*')).test(v) ? undefined : { field: attr, errorMessage: String(cfg['error-message'] ?? 'error-pattern-no-match'), params: [attr, v, cfg.pattern] };
    case 'options':
      return ((cfg.options as string[] | undefined) ?? []).includes(v) ? undefined : { field: attr, errorMessage: 'error-invalid-value', params: [attr, v] };
    case 'integer':
    case 'double': {
      const x = Number(v);
      if (!Number.isFinite(x) || (validator === 'integer' && !Number.isInteger(x))) return { field: attr, errorMessage: validator === 'integer' ? 'error-invalid-number' : 'error-invalid-number', params: [attr, v] };
      const min = n('min');
      const max = n('max');
      if ((min !== undefined && x < min) || (max !== undefined && x > max)) return { field: attr, errorMessage: 'error-number-out-of-range', params: [attr, min ?? '', max ?? ''] };
      return undefined;
    }
    case 'uri':
      try {
        new URL(v);
        return undefined;
      } catch {
        return { field: attr, errorMessage: 'error-invalid-uri', params: [attr, v] };
      }
    case 'person-name-prohibited-characters':
      return /[<>&"$%!#?§;*~/\\|^=[\]{}()]/.test(v) ? { field: attr, errorMessage: 'error-person-name-invalid-character', params: [attr, v] } : undefined;
    case 'username-prohibited-characters':
      return /[<>&"'$%!#?§;*~/\\|^=[\]{}()\s]/.test(v) ? { field: attr, errorMessage: 'error-username-invalid-character', params: [attr, v] } : undefined;
    default:
      return undefined;
  }
}

/**
 * Validates a user representation as an admin would submit it (the merged state of the user), and
 * returns the attributes to store (unmanaged ones dropped when the policy is off or read-only).
 */
export function applyProfile(realm: RealmEntity, merged: { username: string; email?: string | undefined; firstName?: string | undefined; lastName?: string | undefined; attributes: Record<string, string[]> }, previousAttributes: Record<string, string[]>): Record<string, string[]> {
  const cfg = profileOf(realm);
  const errors: Err[] = [];
  const declared = new Map((cfg.attributes ?? []).map((a) => [a.name, a]));
  for (const a of cfg.attributes ?? []) {
    const raw = ROOT.has(a.name) ? (merged as unknown as Record<string, string | undefined>)[a.name] : undefined;
    const values = ROOT.has(a.name) ? (raw ? [raw] : []) : (merged.attributes[a.name] ?? []).filter((x) => x !== '');
    const requiredForAdmin = !!a.required && (!a.required.roles || a.required.roles.length === 0 || a.required.roles.includes('admin'));
    if (requiredForAdmin && values.length === 0 && !(a.name === 'email' && realm.registrationEmailAsUsername)) {
      errors.push({ field: a.name, errorMessage: 'error-user-attribute-required', params: [a.name] });
      continue;
    }
    if (!a.multivalued && values.length > 1) errors.push({ field: a.name, errorMessage: 'error-invalid-multivalued-size', params: [a.name, 0, 1] });
    for (const [validator, vcfg] of Object.entries(a.validations ?? {})) {
      for (const v of values) {
        const e = validateValue(a.name, validator, vcfg, v);
        if (e) {
          errors.push(e);
          break;
        }
      }
    }
  }
  if (errors.length === 1) throw new HttpError(400, json(400, errors[0]));
  if (errors.length > 1) throw new HttpError(400, json(400, { ...errors[0], errors }));
  const policy = cfg.unmanagedAttributePolicy;
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(merged.attributes)) {
    if (declared.has(k) || ROOT.has(k)) out[k] = v;
    else if (policy === 'ENABLED' || policy === 'ADMIN_EDIT') out[k] = v;
    else if (previousAttributes[k]) out[k] = previousAttributes[k]!; // unmanaged and not editable by admins: keep as stored
  }
  // Internal attributes stay whatever the policy.
  for (const [k, v] of Object.entries(previousAttributes)) if ((k === 'is_temporary_admin' || k === 'disabledReason') && !(k in out)) out[k] = v;
  return out;
}

/** UserProfileMetadata for `?userProfileMetadata=true`. */
export function profileMetadata(realm: RealmEntity): Record<string, unknown> {
  const cfg = profileOf(realm);
  return {
    attributes: (cfg.attributes ?? []).map((a) => ({
      name: a.name,
      displayName: a.displayName ?? '',
      required: !!a.required && (!a.required.roles?.length || a.required.roles.includes('admin')),
      readOnly: !(a.permissions?.edit ?? []).includes('admin'),
      validators: a.validations ?? {},
      multivalued: a.multivalued ?? false,
      ...(a.group ? { group: a.group } : {}),
      ...(a.annotations ? { annotations: a.annotations } : {}),
    })),
    groups: cfg.groups ?? [],
  };
}

export type { UserRepresentation };
