// The built server as a process (node dist/main.js). Crash safety: kills it (SIGKILL) while many
// user creations are in flight, restarts it, and checks that every acknowledged (201) creation is
// there; then rebuilds the store from the log with the server flags and checks again. Signals: a
// SIGTERM at any point of the start-up closes the server gracefully (exit code 0).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'identity-crash-'));
const children: ChildProcess[] = [];

function spawnServer(dataDir: string): ChildProcess {
  const child = spawn(process.execPath, ['dist/main.js', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--workers', '1'], {
    cwd: root,
    env: { ...process.env, ADMIN_USERNAME: 'admin', ADMIN_PASSWORD: 'crash-pw', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return child;
}

function start(): Promise<{ child: ChildProcess; baseUrl: string }> {
  const child = spawnServer(dir);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"baseUrl":"([^"]+)"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, baseUrl: m[1]! });
      }
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    // 'close' rather than 'exit': by then stderr is drained, so a crash's whole report is in the error.
    child.on('close', (code, signal) => reject(new Error(`server exited (code ${code}, signal ${signal}) before it listened: ${out}`)));
  });
}

async function adminToken(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/realms/master/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=password&client_id=admin-cli&username=admin&password=crash-pw',
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

beforeAll(() => {
  try {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: root, stdio: 'ignore' });
  } catch {
    // Type errors elsewhere in the tree still emit JavaScript; dist/main.js is what we need.
  }
}, 120_000);

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('crash safety', () => {
  it('keeps every acknowledged write across SIGKILL and rebuilds from the log', async () => {
    const first = await start();
    const token = await adminToken(first.baseUrl);
    const acked: string[] = [];
    let stop = false;
    let killed = false;
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        try {
          const res = await fetch(`${first.baseUrl}/admin/realms/master/users`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ username: `crash-${w}-${i}`, enabled: true }),
          });
          if (res.status === 201) acked.push(res.headers.get('location')!.split('/').pop()!);
          else await res.text();
        } catch {
          return; // connection cut by the kill
        }
        if (!killed && acked.length >= 1500) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 64 }, (_, w) => worker(w)));
    stop = true;
    expect(killed).toBe(true);
    expect(acked.length).toBeGreaterThanOrEqual(1500);

    const check = async (baseUrl: string) => {
      const t = await adminToken(baseUrl);
      const missing: string[] = [];
      for (let i = 0; i < acked.length; i += 50) {
        await Promise.all(
          acked.slice(i, i + 50).map(async (id) => {
            const res = await fetch(`${baseUrl}/admin/realms/master/users/${id}`, { headers: { Authorization: `Bearer ${t}` } });
            if (res.status !== 200) missing.push(id);
            await res.text();
          }),
        );
      }
      expect(missing).toEqual([]);
      const count = await (await fetch(`${baseUrl}/admin/realms/master/users/count`, { headers: { Authorization: `Bearer ${t}` } })).json();
      expect(count).toBeGreaterThanOrEqual(acked.length + 1);
      return count as number;
    };

    const second = await start();
    const count = await check(second.baseUrl);
    second.child.kill('SIGTERM');
    await new Promise((r) => second.child.once('exit', r));

    // The identity:rebuild script: rebuild every table from the log, then exit.
    const rebuild = spawn(process.execPath, ['dist/main.js', '--data-dir', dir, '--port', '0', '--workers', '1', '--rebuild-identity', '--exit-after-rebuild'], { cwd: root, stdio: 'ignore', env: { ...process.env, ADMIN_PASSWORD: 'crash-pw' } });
    children.push(rebuild);
    const code = await new Promise((r) => rebuild.once('exit', r));
    expect(code).toBe(0);

    const third = await start();
    expect(await check(third.baseUrl)).toBe(count);
    third.child.kill('SIGTERM');
    await new Promise((r) => third.child.once('exit', r));
  }, 180_000);
});

describe('signals', () => {
  /** Sends SIGTERM when the server's output first matches `when`; resolves with how it exited. */
  const terminateWhen = (when: RegExp): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> => {
    const child = spawnServer(mkdtempSync(join(tmpdir(), 'server-signals-')));
    let out = '';
    let sent = false;
    const onData = (d: Buffer): void => {
      out += d.toString();
      if (!sent && when.test(out)) {
        sent = true;
        child.kill('SIGTERM');
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, out })));
  };

  // While it starts: the first line (no default-credentials warning: ADMIN_PASSWORD is set) is
  // the identity service's, before the listener is up. Then the moment it announces its address.
  it.each([
    ['while it starts', /"msg":/],
    ['the moment it announces its address', /"baseUrl":/],
  ])('closes gracefully on a SIGTERM sent %s', async (_when, trigger) => {
    const r = await terminateWhen(trigger);
    expect(r.signal, r.out).toBeNull();
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/"msg":"stopped"/);
  }, 60_000);
});
