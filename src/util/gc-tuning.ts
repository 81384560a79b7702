// The server's garbage-collector setting: no concurrent marking. A stream of small statements
// promotes a steady trickle of query state (the history, in-flight polls), so V8 starts a major
// GC every second or two, and by default marks it on background threads. On a 2-core machine
// those threads take the CPU from the main thread that serves every request, and scavenges that
// run while marking is in progress take 3x longer (`--trace-gc`, SELECT 1 under 32 clients: 5.0 ms
// against 1.6 ms on average). Marking in small steps on the main thread instead measured
// 10.8k → 13.7–15.5k queries/s and p99 12.0 → 7.4–8.3 ms with the front door off (10.1k → 10.7k,
// p99 9.7 → 8.4 ms with it on); the 22 TPC-H queries at sf1 did not change beyond noise. The
// flag is process-wide and read when a marking cycle starts, so setting it at startup suffices.
// Who starts node with an explicit choice (`--concurrent-marking`, in execArgv or NODE_OPTIONS)
// keeps it.
import v8 from 'node:v8';

const FLAG = /--(no-)?concurrent[-_]marking(?=$|[\s=])/;

/** Whether the process was started with an explicit concurrent-marking choice. */
export function concurrentMarkingChosen(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return execArgv.some((a) => FLAG.test(a)) || FLAG.test(nodeOptions ?? '');
}

let applied = false;

/** Applies the server's GC setting once per process (unless chosen on the command line). */
export function tuneGarbageCollector(): void {
  if (applied) return;
  applied = true;
  if (concurrentMarkingChosen(process.execArgv, process.env.NODE_OPTIONS)) return;
  v8.setFlagsFromString('--no-concurrent-marking');
}
