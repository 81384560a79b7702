// Runs one of the bench's child-process scripts (fork + IPC): sends it a job, passes each message
// to a callback, resolves when it exits cleanly.
import { fork } from 'node:child_process';

export function runChild<Job, Message extends { type: string }>(
  script: URL,
  job: Job,
  onMessage: (message: Message) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = fork(script, ['--child'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
    child.on('message', (m) => onMessage(m as Message));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${script.pathname} exited with ${signal ?? `code ${code}`}`));
    });
    child.send(job as object);
  });
}
