// The server's garbage-collector settings. (1) No allocation-site pretenuring: while TPC-H
// queries run, V8 learns that objects from some allocation sites (pages, column and stats
// objects) live long and from then on allocates them directly in the old generation, also for
// every later small statement, whose objects die at once: after the 22 queries at sf1, SELECT 1
// under load filled old space with 1.2 MB of such garbage per scavenge and needed a major GC
// (6–16 ms pauses) every 1.2 s; without pretenuring it runs at the fresh process's rate (9.4k →
// 10–11k queries/s, p99 10 → 7–8 ms, `--trace-gc-nvp`). (2) No concurrent marking. A stream of small statements
// promotes a steady trickle of query state (the history, in-flight polls), so V8 starts a major
// GC every second or two, and by default marks it on background threads. On a 2-core machine
// those threads take the CPU from the main thread that serves every request, and scavenges that
// run while marking is in progress take 3x longer (`--trace-gc`, SELECT 1 under 32 clients: 5.0 ms
// against 1.6 ms on average). Marking in small steps on the main thread instead measured
// 10.8k → 13.7–15.5k queries/s and p99 12.0 → 7.4–8.3 ms (on uWS, before the move to node:http);
// the 22 TPC-H queries at sf1 did not change beyond noise. The
// flag is process-wide and read when a marking cycle starts; the entry points (main.ts,
// bench/run.ts) set both before anything else is loaded, since flipping them mid-cycle is unsafe.
// Who starts node with an explicit choice of either flag (in execArgv or NODE_OPTIONS) keeps it.
import v8 from 'node:v8';

export const CONCURRENT_MARKING_FLAG = /--(no-)?concurrent[-_]marking(?=$|[\s=])/;
export const PRETENURING_FLAG = /--(no-)?allocation[-_]site[-_]pretenuring(?=$|[\s=])/;

/** Whether the process was started with an explicit choice of a flag. */
export function flagChosen(flag: RegExp, execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return execArgv.some((a) => flag.test(a)) || flag.test(nodeOptions ?? '');
}

let applied = false;

/** Applies the server's GC settings once per process (each unless chosen on the command line). */
export function tuneGarbageCollector(): void {
  if (applied) return;
  applied = true;
  if (!flagChosen(PRETENURING_FLAG, process.execArgv, process.env.NODE_OPTIONS)) v8.setFlagsFromString('--no-allocation-site-pretenuring');
  if (!flagChosen(CONCURRENT_MARKING_FLAG, process.execArgv, process.env.NODE_OPTIONS)) v8.setFlagsFromString('--no-concurrent-marking');
}
