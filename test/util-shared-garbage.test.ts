// Dropped shared buffers: past the threshold a major GC is requested from V8 (and the request
// really reaches it: an object only weakly held is gone afterwards).
import { describe, expect, it } from 'vitest';
import { droppedSharedBytes, sharedGarbageCollections } from '../src/util/shared-garbage.js';

describe('shared garbage', () => {
  it('requests no collection below 64 MB of dropped buffers, one past it, and the GC runs', async () => {
    const before = sharedGarbageCollections();
    droppedSharedBytes(10 * 1024 * 1024);
    expect(sharedGarbageCollections()).toBe(before);
    let garbage: { buffer: SharedArrayBuffer } | null = { buffer: new SharedArrayBuffer(1024) };
    const ref = new WeakRef(garbage);
    garbage = null;
    // Let the allocation leave the current task: V8 keeps objects a running task created alive.
    await new Promise((resolve) => setTimeout(resolve, 0));
    droppedSharedBytes(60 * 1024 * 1024);
    expect(sharedGarbageCollections()).toBe(before + 1);
    // The collection runs after the current task: wait for it (bounded).
    for (let i = 0; i < 200 && ref.deref() !== undefined; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(ref.deref()).toBeUndefined();
  });
});
