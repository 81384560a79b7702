// Peak memory of this process. A sampler thread reads the process-wide RSS every few ms (a thread
// of its own, so a busy main thread cannot make it miss a peak); VmHWM from /proc is the kernel's
// own high-water mark, reported beside it as a cross-check.
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/** The process's peak resident set (VmHWM), or the current RSS where /proc is missing. */
export function peakRss(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/u.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // not Linux
  }
  return process.memoryUsage.rss();
}

const SAMPLER = `
const { parentPort, workerData } = require('node:worker_threads');
let peak = 0;
const tick = () => { const r = process.memoryUsage.rss(); if (r > peak) peak = r; };
tick();
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on('message', (m) => {
  tick();
  if (m === 'reset') peak = 0, tick();
  else if (m === 'read') parentPort.postMessage(peak);
  else if (m === 'stop') { clearInterval(timer); parentPort.postMessage(peak); parentPort.close(); }
});
`;

export class RssSampler {
  private readonly worker: Worker;

  constructor(readonly intervalMs = 10) {
    this.worker = new Worker(SAMPLER, { eval: true, workerData: { intervalMs } });
    this.worker.unref();
  }

  private ask(message: 'read' | 'stop'): Promise<number> {
    return new Promise((resolve) => {
      this.worker.once('message', (peak: number) => resolve(peak));
      this.worker.postMessage(message);
    });
  }

  /** The highest RSS seen since start (bytes). */
  read(): Promise<number> {
    return this.ask('read');
  }

  async stop(): Promise<number> {
    const peak = await this.ask('stop');
    await this.worker.terminate();
    return peak;
  }
}
