// Collection of SharedArrayBuffers other threads allocated. To this thread's GC such a buffer is a
// small object: the megabytes behind it count towards no heuristic, so pages and hash tables that
// finished queries dropped stay allocated until a major GC happens for other reasons. Measured on
// TPC-H Q21 at sf1 run back to back: RSS grew ~60 MB per run without end, and every new page then
// cost fresh page faults (~200 ms of system time per run; 300 ms a run instead of 130 ms). So the
// coordinator reports the bytes a query moved when it is done with them, and past a threshold asks
// V8 for a major GC itself. On Node 20's V8 that is one pause of the main thread (20-40 ms with a
// ~35 MB heap, `--trace-gc`: "testing"), so it runs after the current task: the query's last
// answer goes out first. A minor GC instead was measured too: RSS kept growing (Q21 x40: 1.5 GB
// and rising against 570 MB).
import v8 from 'node:v8';
import vm from 'node:vm';

/** Bytes of dropped shared buffers after which a collection is requested. */
const COLLECT_AFTER_BYTES = 64 * 1024 * 1024;

type Collector = (options: { type: 'major'; execution: 'async' }) => void;

let collector: Collector | null | undefined;
let pendingBytes = 0;
let requested = 0;

/** V8's gc() without putting it on the global object (a context of its own exposes it). */
function gcFunction(): Collector | null {
  if (collector === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc');
      collector = vm.runInNewContext('gc') as Collector;
    } catch {
      collector = null;
    }
  }
  return collector;
}

/** Notes `bytes` of shared buffers this thread no longer references; may request a collection. */
export function droppedSharedBytes(bytes: number): void {
  pendingBytes += bytes;
  if (pendingBytes < COLLECT_AFTER_BYTES) return;
  pendingBytes = 0;
  const gc = gcFunction();
  if (gc === null) return;
  requested++;
  setImmediate(() => gc({ type: 'major', execution: 'async' }));
}

/** How many collections were requested so far (diagnostics and tests). */
export function sharedGarbageCollections(): number {
  return requested;
}
