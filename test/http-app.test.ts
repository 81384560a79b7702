import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { defaultConfig } from '../src/config.js';
import { silentLogger } from '../src/util/logger.js';

describe('createApp', () => {
  it('serves the node resource on a free port and closes', async () => {
    const app = await createApp(defaultConfig(), silentLogger());
    expect(app.port).toBeGreaterThan(0);
    expect(app.baseUrl).toBe(`http://127.0.0.1:${app.port}`);
    // The node records want credentials (the default admin's here); /v1/info is public, as Trino's.
    expect((await fetch(`${app.baseUrl}/v1/node`)).status).toBe(401);
    const basic = `Basic ${Buffer.from('admin:admin').toString('base64')}`;
    const nodes = (await (await fetch(`${app.baseUrl}/v1/node`, { headers: { Authorization: basic } })).json()) as Array<{ uri: string }>;
    expect(nodes[0]!.uri).toBe(app.baseUrl);
    const info = (await (await fetch(`${app.baseUrl}/v1/info`)).json()) as { nodeVersion: { version: string } };
    expect(info.nodeVersion.version).toMatch(/^\d+\.\d+\.\d+/);
    await app.close();
    await expect(fetch(`${app.baseUrl}/v1/node`)).rejects.toThrow();
  });
});
