// Realm localization (RealmLocalizationResource): realm-specific locales and texts, import of a JSON
// file, one key as text/plain; and the effective message bundles served at
// GET /resources/{realm}/{themeType}/{locale} (theme texts overlaid by the realm's own).
import { z } from 'zod';
import { json, text, type RouteRegistry } from '../../http/types.js';
import { ERR, errorMessage } from '../errors.js';
import type { RealmEntity } from '../store/entities.js';
import type { IdentityService } from '../service.js';
import { noContent, ok, type AdminContext, type AdminRoutes } from './context.js';
import { parseForm } from './forms.js';

type Texts = Record<string, Record<string, string>>;
const textsOf = (r: RealmEntity): Texts => (r.localizationTexts ?? {}) as Texts;

/** A few of the base theme's messages per theme type (English), enough to overlay realm texts on. */
const THEME_MESSAGES: Record<string, Record<string, string>> = {
  login: { loginAccountTitle: 'Sign in to your account', doLogIn: 'Sign In', username: 'Username', password: 'Password', invalidUserMessage: 'Invalid username or password.', accountTemporarilyDisabledMessage: 'Account is temporarily disabled; contact your administrator or retry later.' },
  account: { accountManagementTitle: 'Keycloak Account Management', personalInfo: 'Personal info', signingIn: 'Signing in' },
  admin: { realmSettings: 'Realm settings', clients: 'Clients', users: 'Users', groups: 'Groups' },
  email: { emailVerificationSubject: 'Verify email', executeActionsSubject: 'Update Your Account', passwordResetSubject: 'Reset password', orgInviteSubject: 'Invitation to join the {0} organization' },
};

export function register(r: AdminRoutes): void {
  const L = '/localization';
  const view = (ctx: AdminContext) => ctx.auth.requireAnyAdmin();
  const manage = (ctx: AdminContext) => ctx.auth.realm.requireManage();
  const setTexts = (ctx: AdminContext, locale: string, f: (cur: Record<string, string>) => Record<string, string> | undefined, record: (ev: import('./context.js').AdminEventBuilder) => void) =>
    ctx.updateRealm((cur, ev) => {
      const all = { ...textsOf(cur) };
      const next = f({ ...(all[locale] ?? {}) });
      if (next === undefined || Object.keys(next).length === 0) delete all[locale];
      else all[locale] = next;
      record(ev);
      return { next: { ...cur, localizationTexts: all } };
    });

  r.realm('GET', L, (ctx) => (view(ctx), ok(Object.keys(textsOf(ctx.realm)).sort())));
  r.realm('GET', `${L}/:locale`, (ctx) => {
    view(ctx);
    const locale = ctx.param('locale');
    const all = textsOf(ctx.realm);
    const own = all[locale] ?? {};
    if (!ctx.queryBool('useRealmDefaultLocaleFallback', false)) return ok(own);
    const dflt = String(ctx.realm.defaultLocale ?? 'en');
    return ok({ ...(dflt !== locale ? (all[dflt] ?? {}) : {}), ...own });
  });
  r.realm('POST', `${L}/:locale`, async (ctx) => {
    manage(ctx);
    const locale = ctx.param('locale');
    const ct = ctx.req.headers['content-type'] ?? '';
    let raw: Buffer = ctx.req.body;
    if (ct.startsWith('multipart/form-data')) {
      const file = parseForm(ctx.req).file() ?? parseForm(ctx.req).parts[0];
      if (!file) throw errorMessage(400, 'No file was uploaded');
      raw = file.data;
    }
    let map: Record<string, string>;
    try {
      map = z.record(z.string(), z.string()).parse(JSON.parse(raw.toString('utf8')));
    } catch {
      throw errorMessage(400, 'Could not parse the localization texts: expected a JSON object of strings');
    }
    await setTexts(ctx, locale, (cur) => ({ ...cur, ...map }), (ev) => ev.create('REALM_LOCALIZATION', ctx.here(), map));
    return noContent();
  });
  r.realm('DELETE', `${L}/:locale`, async (ctx) => {
    manage(ctx);
    const locale = ctx.param('locale');
    if (!textsOf(ctx.realm)[locale]) throw ERR.notFound('No localization texts for locale found');
    await setTexts(ctx, locale, () => undefined, (ev) => ev.delete('REALM_LOCALIZATION', ctx.here()));
    return noContent();
  });
  r.realm('GET', `${L}/:locale/:key`, (ctx) => {
    view(ctx);
    const v = textsOf(ctx.realm)[ctx.param('locale')]?.[ctx.param('key')];
    if (v === undefined) throw ERR.notFound('Localization text not found');
    return text(200, v);
  });
  r.realm('PUT', `${L}/:locale/:key`, async (ctx) => {
    manage(ctx);
    const value = ctx.req.body.toString('utf8');
    const key = ctx.param('key');
    if (!key.trim()) throw errorMessage(400, 'Key is missing');
    await setTexts(ctx, ctx.param('locale'), (cur) => ({ ...cur, [key]: value }), (ev) => ev.update('REALM_LOCALIZATION', ctx.here(), { [key]: value }));
    return noContent();
  });
  r.realm('DELETE', `${L}/:locale/:key`, async (ctx) => {
    manage(ctx);
    const locale = ctx.param('locale');
    const key = ctx.param('key');
    if (textsOf(ctx.realm)[locale]?.[key] === undefined) throw ERR.notFound('Localization text not found');
    await setTexts(ctx, locale, (cur) => {
      delete cur[key];
      return cur;
    }, (ev) => ev.delete('REALM_LOCALIZATION', ctx.here()));
    return noContent();
  });
}

/** GET /resources/{realm}/{themeType}/{locale}: effective messages, realm texts over the theme's. */
export function registerThemeResources(registry: RouteRegistry, svc: IdentityService): void {
  registry.add('GET', '/resources/:realm/:themeType/:locale', (req) => {
    const realm = svc.realm(req.params.realm ?? '');
    if (!realm) return json(404, { error: 'Realm not found.' });
    const type = req.params.themeType ?? '';
    const theme = THEME_MESSAGES[type];
    if (!theme) return json(404, { error: `Theme type ${type} not found` });
    const locale = req.params.locale ?? 'en';
    const texts = textsOf(realm);
    const dflt = String(realm.defaultLocale ?? 'en');
    const realmTexts = { ...(texts[dflt] ?? {}), ...(texts[locale] ?? {}) };
    const source = req.query.get('source') === 'true';
    const out: Array<{ key: string; value: string; source?: string }> = [];
    for (const [key, value] of Object.entries({ ...(locale === 'en' ? theme : {}), ...realmTexts })) {
      out.push({ key, value, ...(source ? { source: key in realmTexts ? 'REALM' : 'THEME' } : {}) });
    }
    out.sort((a, b) => a.key.localeCompare(b.key));
    return json(200, out);
  });
}
