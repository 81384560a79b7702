// The private Unix sockets behind the front door: removed when their server closes, and a file
// left by a process that no longer runs is removed when the next server starts.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Router } from '../src/http/router.js';
import { listen } from '../src/http/server.js';
import { json } from '../src/http/types.js';
import { claimPrivateSocketPath, releasePrivateSocketPath } from '../src/http/private-socket.js';

describe('private sockets', () => {
  it('sweeps files of dead processes on first use, keeps its own until released', () => {
    // Above Linux's largest pid (2^22): no such process runs.
    const stale = join(tmpdir(), 'analytics-4194305-0123456789ab.sock');
    const foreign = join(tmpdir(), 'analytics-not-ours.sock');
    writeFileSync(stale, '');
    writeFileSync(foreign, '');
    const path = claimPrivateSocketPath();
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(foreign)).toBe(true); // not one of ours: left alone
    writeFileSync(path, '');
    releasePrivateSocketPath(path);
    expect(existsSync(path)).toBe(false);
    releasePrivateSocketPath(foreign);
  });

  it('a server behind the front door removes its socket file when it closes', async () => {
    const router = new Router();
    router.add('GET', '/ping', () => json(200, { ok: true }));
    const before = new Set(socketFiles());
    const server = await listen(router, { host: '127.0.0.1', port: 0 });
    const mine = socketFiles().filter((f) => !before.has(f));
    expect(mine).toHaveLength(1);
    expect((await fetch(`http://127.0.0.1:${server.port}/ping`)).status).toBe(200);
    await server.close();
    expect(existsSync(join(tmpdir(), mine[0]!))).toBe(false);
  });
});

function socketFiles(): string[] {
  return readdirSync(tmpdir()).filter((n) => n.startsWith(`analytics-${process.pid}-`) && n.endsWith('.sock'));
}
