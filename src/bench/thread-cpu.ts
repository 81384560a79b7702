// CPU time of this process's main thread (Linux: /proc/self/task/<pid>/stat), where the server
// under test answers HTTP in the load scenarios. A throughput ratio between two servers measures
// the load client as much as the servers when the client is the bottleneck (on 2 cores it often
// is); CPU time per request measures the server alone.
import { readFileSync } from 'node:fs';

/** Linux reports thread times in USER_HZ ticks, 100 per second on every architecture it runs on. */
const TICKS_PER_SECOND = 100;

/** CPU milliseconds (user + system) the main thread has used so far; null where /proc is not there. */
export function mainThreadCpuMs(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses): state is field 3,
    // utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : null;
  } catch {
    return null;
  }
}
