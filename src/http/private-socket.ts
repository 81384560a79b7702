// Paths of the private Unix sockets uWS listens on behind the front door (server.ts). A path is
// removed when its server closes, at the latest when the process exits; one left by a process that
// was killed is removed by the next server that starts on this machine.
import { randomBytes } from 'node:crypto';
import { readdirSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const NAME = /^analytics-(\d+)-[0-9a-f]+\.sock$/u;
const live = new Set<string>();
let swept = false;

/** A fresh socket path in the system's temporary folder, removed at exit if not released before. */
export function claimPrivateSocketPath(): string {
  if (!swept) {
    swept = true;
    removeStaleSockets();
    process.once('exit', () => {
      for (const path of live) unlinkQuietly(path);
    });
  }
  const path = join(tmpdir(), `analytics-${process.pid}-${randomBytes(6).toString('hex')}.sock`);
  live.add(path);
  return path;
}

/** Removes the socket file of a closed server. */
export function releasePrivateSocketPath(path: string): void {
  live.delete(path);
  unlinkQuietly(path);
}

/** Socket files of processes that no longer run. */
function removeStaleSockets(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const match = NAME.exec(name);
    if (match && Number(match[1]) !== process.pid && !running(Number(match[1]))) unlinkQuietly(join(tmpdir(), name));
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
