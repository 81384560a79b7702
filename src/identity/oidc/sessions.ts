// User sessions made by the token endpoint. Kept in memory: a restart ends every session (clients
// log in again), which keeps token grants free of disk writes.
import { randomUUID } from 'node:crypto';

export interface UserSession {
  id: string;
  realmId: string;
  userId: string;
  username: string;
  ipAddress: string;
  start: number;
  lastAccess: number;
  clients: Map<string, string>; // client internal id → clientId
  offline: boolean;
  rememberMe: boolean;
  notes?: Record<string, string>;
}

export class SessionStore {
  private readonly sessions = new Map<string, UserSession>();

  create(realmId: string, userId: string, username: string, ipAddress: string, client: { id: string; clientId: string }, offline = false): UserSession {
    const now = Date.now();
    const s: UserSession = { id: randomUUID(), realmId, userId, username, ipAddress, start: now, lastAccess: now, clients: new Map([[client.id, client.clientId]]), offline, rememberMe: false };
    this.sessions.set(s.id, s);
    return s;
  }

  get(id: string): UserSession | undefined {
    return this.sessions.get(id);
  }

  touch(s: UserSession): void {
    s.lastAccess = Date.now();
  }

  remove(id: string): boolean {
    return this.sessions.delete(id);
  }

  list(filter: (s: UserSession) => boolean): UserSession[] {
    return [...this.sessions.values()].filter(filter);
  }

  removeWhere(filter: (s: UserSession) => boolean): number {
    let n = 0;
    for (const s of this.sessions.values()) if (filter(s)) n += this.sessions.delete(s.id) ? 1 : 0;
    return n;
  }
}
