// Brute-force protection (Keycloak DefaultBruteForceProtector), applied by the token endpoint per
// the realm's settings: failures within maxDeltaTimeSeconds count towards failureFactor; reaching it
// locks the user out for waitIncrementSeconds × (failures / failureFactor) (MULTIPLE) or
// × (1 + failures − failureFactor) (LINEAR), capped at maxFailureWaitSeconds; two failures closer than
// quickLoginCheckMilliSeconds lock for minimumQuickLoginWaitSeconds; permanentLockout disables the
// user (after maxTemporaryLockouts temporary ones, when that is set). Like Keycloak's login-failure
// cache, the records are kept in memory; a permanent lockout is a real write to the user.
import type { RealmEntity } from '../store/entities.js';

export interface LoginFailure {
  numFailures: number;
  numTemporaryLockouts: number;
  lastFailure: number;
  lastIPFailure: string;
  /** Epoch milliseconds before which logins are refused (0 when not locked). */
  failedLoginNotBefore: number;
}

const n = (realm: RealmEntity, k: string, d: number) => {
  const v = Number(realm[k]);
  return Number.isFinite(v) ? v : d;
};

export class BruteForceProtector {
  private readonly failures = new Map<string, LoginFailure>();

  private key(realmId: string, userId: string): string {
    return `${realmId}|${userId}`;
  }

  get(realmId: string, userId: string): LoginFailure | undefined {
    return this.failures.get(this.key(realmId, userId));
  }

  /** Whether the user is locked out right now (temporarily). */
  isTemporarilyDisabled(realm: RealmEntity, userId: string, now = Date.now()): boolean {
    if (!realm.bruteForceProtected) return false;
    const f = this.get(realm.id, userId);
    return !!f && f.failedLoginNotBefore > now;
  }

  /** Records a failed login; returns 'permanent' when the user must now be disabled. */
  failure(realm: RealmEntity, userId: string, ip: string, now = Date.now()): 'permanent' | 'temporary' | 'none' {
    if (!realm.bruteForceProtected) return 'none';
    const k = this.key(realm.id, userId);
    let f = this.failures.get(k);
    if (!f) this.failures.set(k, (f = { numFailures: 0, numTemporaryLockouts: 0, lastFailure: 0, lastIPFailure: '', failedLoginNotBefore: 0 }));
    const last = f.lastFailure;
    const delta = last > 0 ? now - last : 0;
    if (last > 0 && delta > n(realm, 'maxDeltaTimeSeconds', 43200) * 1000) {
      f.numFailures = 0;
      f.failedLoginNotBefore = 0;
    }
    f.numFailures++;
    f.lastFailure = now;
    f.lastIPFailure = ip;
    const factor = Math.max(1, n(realm, 'failureFactor', 30));
    const permanent = realm.permanentLockout === true;
    const maxTemp = n(realm, 'maxTemporaryLockouts', 0);
    if (permanent && maxTemp === 0) return f.numFailures >= factor ? 'permanent' : 'none';
    let notBefore = 0;
    if (last > 0 && delta < n(realm, 'quickLoginCheckMilliSeconds', 1000)) notBefore = now + n(realm, 'minimumQuickLoginWaitSeconds', 60) * 1000;
    if (f.numFailures >= factor) {
      const inc = n(realm, 'waitIncrementSeconds', 60);
      let wait = realm.bruteForceStrategy === 'LINEAR' ? inc * (1 + f.numFailures - factor) : inc * Math.floor(f.numFailures / factor);
      wait = Math.min(wait, n(realm, 'maxFailureWaitSeconds', 900));
      notBefore = Math.max(notBefore, now + wait * 1000);
    }
    if (notBefore > f.failedLoginNotBefore) {
      if (f.numFailures >= factor) f.numTemporaryLockouts++;
      f.failedLoginNotBefore = notBefore;
      if (permanent && maxTemp > 0 && f.numTemporaryLockouts > maxTemp) return 'permanent';
      return 'temporary';
    }
    return 'none';
  }

  /** A successful login clears the failure count (not a lockout in force). */
  success(realm: RealmEntity, userId: string): void {
    if (!realm.bruteForceProtected) return;
    this.failures.delete(this.key(realm.id, userId));
  }

  clear(realmId: string, userId: string): boolean {
    return this.failures.delete(this.key(realmId, userId));
  }

  clearRealm(realmId: string): number {
    let count = 0;
    for (const k of [...this.failures.keys()]) if (k.startsWith(`${realmId}|`)) count += this.failures.delete(k) ? 1 : 0;
    return count;
  }
}

/** The attribute a permanent lockout sets on the user (Keycloak's disabled reason). */
export const DISABLED_REASON = 'disabledReason';
export const PERMANENT_LOCKOUT = 'permanentLockout';
