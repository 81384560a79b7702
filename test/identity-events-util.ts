// Test helper (not a test file): admin-event counting and failure capture for the identity suites.
import type KcAdminClient from '@keycloak/keycloak-admin-client';

export async function failure(p: Promise<unknown>): Promise<{ status: number; data: unknown }> {
  try {
    await p;
    return { status: 200, data: undefined };
  } catch (e) {
    const err = e as { response?: { status: number }; responseData?: unknown };
    return { status: err.response?.status ?? -1, data: err.responseData };
  }
}

/** Runs fn and returns the admin events of `realm` it wrote (newest first). */
export async function eventsOf(kc: KcAdminClient, realm: string, fn: () => Promise<unknown>) {
  const before = (await kc.realms.findAdminEvents({ realm, max: 100_000 })).length;
  await fn();
  const all = await kc.realms.findAdminEvents({ realm, max: 100_000 });
  return all.slice(0, all.length - before);
}
