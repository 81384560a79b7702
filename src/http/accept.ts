// How accepted connections read: into one shared buffer through net.Socket's `onread` option,
// instead of node's default of a fresh 64 KiB allocation and a Readable `push` + 'data' event per
// read. For the statement protocol's small requests that default was a quarter of the server's
// CPU per request (mock servers giving the same answers under the bench's load, 2026-11-22: 26.5
// against 18.6–20 µs a request).
//
// node:net has `onread` for sockets it creates (`new net.Socket`, `net.connect`) but not for the
// ones a server accepts, so the listening handle's `onconnection` is replaced by one that does
// what node's own does (count the connection, apply noDelay, emit 'connection') with the `onread`
// option added. Where a node version lacks that handle (or its shape changes), the server keeps
// node's default and reads through 'data' events.
import net from 'node:net';

/** Called with each read; `chunk` is only valid during the call. */
export type TransientReader = (chunk: Buffer) => void;

/** Where a new connection's reads go. */
export interface ConnectionReads {
  onSocket(socket: net.Socket): TransientReader;
}

type ClientHandle = object & { setNoDelay?(enable: boolean): void };
interface ListeningHandle {
  onconnection?: (err: number, clientHandle: ClientHandle) => void;
}
interface ServerInternals {
  _handle?: ListeningHandle | null;
  _connections: number;
}

/** One buffer for every connection's reads: a read is handled completely before the next one. */
const READ_BUFFER_BYTES = 64 * 1024;

/**
 * Makes `server` read its connections into a shared buffer and hand each read to the reader
 * `reads.onSocket` returns; call after `listen`. False (and nothing changed) when this node's
 * listening handle does not have the expected shape: use 'data' events then.
 */
export function acceptWithSharedReadBuffer(server: net.Server, reads: ConnectionReads): boolean {
  const internals = server as unknown as ServerInternals;
  const handle = internals._handle;
  const original = handle?.onconnection;
  if (!handle || typeof original !== 'function' || typeof internals._connections !== 'number') return false;
  const buffer = Buffer.allocUnsafeSlow(READ_BUFFER_BYTES);
  handle.onconnection = function onconnection(this: ListeningHandle, err, clientHandle) {
    // Errors (accept failures) and refusals stay with node's own handling.
    if (err || server.maxConnections) return original.call(this, err, clientHandle);
    let reader: TransientReader | undefined;
    const socket = new net.Socket({
      handle: clientHandle,
      readable: true,
      writable: true,
      onread: { buffer, callback: (bytes: number) => void reader?.(buffer.subarray(0, bytes)) },
    } as net.SocketConstructorOpts);
    clientHandle.setNoDelay?.(true);
    internals._connections++;
    Object.assign(socket, { server, _server: server });
    reader = reads.onSocket(socket);
    // 'end' (the client's FIN) is only emitted by a flowing stream, and nothing reads this one.
    socket.resume();
  };
  return true;
}
