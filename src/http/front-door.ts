// The front door: a node:net listener on the public port that reduces an absolute-form target on a
// connection's first request line to origin-form (uWS refuses absolute-form with 505 before
// JavaScript sees it; presto-client cancels queries so), prefixes a PROXY v2 header so uWS still
// reports the client's address, and pipes the connection to uWS on a private Unix socket (or loopback port).
// It runs on a thread of its own (front-door-thread.ts): the piping then costs the coordinator's
// event loop nothing.

import net from 'node:net';

export interface FrontDoor {
  readonly port: number;
  openSockets(): number;
  stopAccepting(): void;
  destroyAll(): void;
}

/** How long a connection whose upstream closed may keep sending before it is cut. */
const LINGER_MS = 2000;

const PROXY_V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
const MAX_REQUEST_LINE = 16 * 1024;
const ABSOLUTE_FORM = /^([A-Za-z]+) [A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#\s]*(\S*) (HTTP\/\d\.\d)\r?\n/;

/** Where uWS listens: a Unix socket path, or a loopback port. */
export type Upstream = string | number;

/** Logs a broken upstream connection (debug detail only). */
export type DoorLogger = (message: string, error: unknown) => void;

export async function openFrontDoor(host: string, port: number, upstream: Upstream, logger: DoorLogger): Promise<FrontDoor> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer({ noDelay: true, allowHalfOpen: true }, (client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    let head: Buffer = Buffer.alloc(0);
    const onData = (data: Buffer): void => {
      head = head.length === 0 ? data : Buffer.concat([head, data]);
      const lineEnd = head.indexOf(0x0a);
      if (lineEnd < 0 && head.length < MAX_REQUEST_LINE) return;
      client.off('data', onData);
      client.pause();
      connectUpstream(client, rewriteRequestLine(head), upstream, sockets, logger);
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as net.AddressInfo;
  return {
    port: address.port,
    openSockets: () => sockets.size,
    stopAccepting: () => server.close(),
    destroyAll: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}

function connectUpstream(client: net.Socket, head: Buffer, to: Upstream, sockets: Set<net.Socket>, logger: DoorLogger): void {
  const upstream = typeof to === 'string' ? net.connect({ path: to, allowHalfOpen: true }) : net.connect({ host: '127.0.0.1', port: to, noDelay: true, allowHalfOpen: true });
  sockets.add(upstream);
  upstream.on('close', () => {
    sockets.delete(upstream);
    if (client.destroyed) return;
    // Lingering close: send the queued reply and a FIN, but keep reading (and dropping) what the
    // client still sends until it closes too. Destroying a socket with unread input sends a reset,
    // which can make the client lose the reply (e.g. a 413 cut into an oversized upload).
    client.unpipe(upstream);
    client.on('data', () => undefined);
    client.resume();
    client.end();
    const linger = setTimeout(() => client.destroy(), LINGER_MS);
    linger.unref();
    client.once('end', () => (client.writableFinished ? client.destroy() : client.once('finish', () => client.destroy())));
    client.once('close', () => clearTimeout(linger));
  });
  client.on('close', () => upstream.destroy());
  upstream.on('error', (error) => {
    logger('front door upstream error', error);
    upstream.destroy();
  });
  upstream.write(proxyHeader(client));
  upstream.write(head);
  client.pipe(upstream);
  upstream.pipe(client);
  client.resume();
}

/** Reduces an absolute-form target on the first request line to origin-form; other input is unchanged. */
export function rewriteRequestLine(head: Buffer): Buffer {
  const lineEnd = head.indexOf(0x0a);
  if (lineEnd < 0) return head;
  const line = head.subarray(0, lineEnd + 1).toString('latin1');
  const match = ABSOLUTE_FORM.exec(line);
  if (!match) return head;
  let target = match[2]!;
  if (target === '' || target.startsWith('?')) target = `/${target}`;
  return Buffer.concat([Buffer.from(`${match[1]} ${target} ${match[3]}\r\n`, 'latin1'), head.subarray(lineEnd + 1)]);
}

/** A PROXY protocol v2 header carrying the client's address, so uWS reports it as the peer. */
function proxyHeader(client: net.Socket): Buffer {
  const remote = client.remoteAddress ?? '';
  const local = client.localAddress ?? '';
  const v4 = net.isIPv4(remote) ? remote : remote.startsWith('::ffff:') && net.isIPv4(remote.slice(7)) ? remote.slice(7) : undefined;
  const localV4 = net.isIPv4(local) ? local : local.startsWith('::ffff:') && net.isIPv4(local.slice(7)) ? local.slice(7) : '127.0.0.1';
  if (v4) {
    const header = Buffer.alloc(16 + 12);
    PROXY_V2_SIGNATURE.copy(header);
    header[12] = 0x21; // version 2, PROXY
    header[13] = 0x11; // TCP over IPv4
    header.writeUInt16BE(12, 14);
    v4.split('.').forEach((octet, i) => (header[16 + i] = Number(octet)));
    localV4.split('.').forEach((octet, i) => (header[20 + i] = Number(octet)));
    header.writeUInt16BE(client.remotePort ?? 0, 24);
    header.writeUInt16BE(client.localPort ?? 0, 26);
    return header;
  }
  if (net.isIPv6(remote)) {
    const header = Buffer.alloc(16 + 36);
    PROXY_V2_SIGNATURE.copy(header);
    header[12] = 0x21;
    header[13] = 0x21; // TCP over IPv6
    header.writeUInt16BE(36, 14);
    ipv6Bytes(remote).copy(header, 16);
    ipv6Bytes(net.isIPv6(local) ? local : '::1').copy(header, 32);
    header.writeUInt16BE(client.remotePort ?? 0, 48);
    header.writeUInt16BE(client.localPort ?? 0, 50);
    return header;
  }
  // Unknown family: a LOCAL command, uWS then reports the loopback peer.
  const header = Buffer.alloc(16);
  PROXY_V2_SIGNATURE.copy(header);
  header[12] = 0x20;
  return header;
}

function ipv6Bytes(address: string): Buffer {
  const bytes = Buffer.alloc(16);
  const zone = address.indexOf('%');
  const plain = zone >= 0 ? address.slice(0, zone) : address;
  const [left, right] = plain.includes('::') ? plain.split('::') : [plain, undefined];
  const parse = (part: string | undefined): number[] =>
    !part ? [] : part.split(':').flatMap((group) => (group.includes('.') ? group.split('.').map(Number).reduce<number[]>((acc, b, i, all) => (i % 2 ? acc : [...acc, (b << 8) | all[i + 1]!]), []) : [parseInt(group, 16)]));
  const head = parse(left);
  const tail = parse(right);
  const groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  groups.forEach((group, i) => bytes.writeUInt16BE(group & 0xffff, i * 2));
  return bytes;
}
