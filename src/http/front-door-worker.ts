// Thread entry of the front door (front-door.ts): opens it with the addresses in workerData, reports
// its port, then answers the owner's requests: stop accepting, and drain (wait until every proxied
// connection has closed, or a deadline, then cut the rest).

import { parentPort, workerData } from 'node:worker_threads';
import { openFrontDoor, type FrontDoor, type Upstream } from './front-door.js';

export interface FrontDoorStart {
  readonly host: string;
  readonly port: number;
  readonly upstream: Upstream;
}

export type FrontDoorCommand = { readonly op: 'stop' } | { readonly op: 'drain'; readonly timeoutMs: number };

export type FrontDoorEvent =
  | { readonly kind: 'listening'; readonly port: number }
  | { readonly kind: 'failed'; readonly message: string; readonly code?: string }
  | { readonly kind: 'stopped' }
  | { readonly kind: 'drained' }
  | { readonly kind: 'log'; readonly message: string; readonly error: string };

const port = parentPort;
if (port) {
  const start = workerData as FrontDoorStart;
  const send = (event: FrontDoorEvent): void => port.postMessage(event);
  let door: FrontDoor | undefined;
  openFrontDoor(start.host, start.port, start.upstream, (message, error) => send({ kind: 'log', message, error: String(error) })).then(
    (opened) => {
      door = opened;
      send({ kind: 'listening', port: opened.port });
    },
    (error: NodeJS.ErrnoException) => send({ kind: 'failed', message: error.message, code: error.code }),
  );
  port.on('message', (command: FrontDoorCommand) => {
    if (!door) return;
    const open = door;
    if (command.op === 'stop') {
      open.stopAccepting();
      send({ kind: 'stopped' });
      return;
    }
    const deadline = Date.now() + command.timeoutMs;
    const check = (): void => {
      if (open.openSockets() > 0 && Date.now() < deadline) {
        setTimeout(check, 10);
        return;
      }
      open.destroyAll();
      send({ kind: 'drained' });
    };
    check();
  });
}
