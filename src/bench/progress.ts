// Where a long run is: a cli-progress bar on stderr when it is a terminal, one line per step
// otherwise (CI logs), so stdout carries only the results.
import cliProgress from 'cli-progress';

export class Progress {
  private readonly bar: cliProgress.SingleBar | undefined;
  private readonly started = performance.now();
  private done = 0;

  constructor(private total: number) {
    if (process.stderr.isTTY) {
      this.bar = new cliProgress.SingleBar(
        { format: '{bar} {percentage}% | {value}/{total} | {duration_formatted} | {task}', stream: process.stderr, hideCursor: true, clearOnComplete: true, etaBuffer: 20 },
        cliProgress.Presets.shades_classic,
      );
      this.bar.start(total, 0, { task: 'starting' });
    }
  }

  /** Names the step now under way. */
  task(label: string): void {
    if (this.bar) this.bar.update(this.done, { task: label });
    else process.stderr.write(`[bench ${((performance.now() - this.started) / 1000).toFixed(1).padStart(6)}s] ${label}\n`);
  }

  /** Marks `n` steps finished. */
  advance(n = 1): void {
    this.done = Math.min(this.total, this.done + n);
    this.bar?.update(this.done);
  }

  addSteps(n: number): void {
    this.total += n;
    this.bar?.setTotal(this.total);
  }

  stop(): void {
    this.bar?.stop();
  }
}
