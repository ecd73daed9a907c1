import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';

interface Started {
  child: ChildProcess;
  what: string;
}

const started: Started[] = [];
const running = ({ child }: Started) => child.exitCode === null && child.signalCode === null;

/**
 * Notes a child process a test file started (a service, a broker), so that the file's end can check it was
 * stopped: a process left behind keeps reconnecting and eats the CPU of the files after it.
 */
export function recordChild(child: ChildProcess, what: string): void {
  started.push({ child, what });
}

/**
 * After a file's own hooks (setup.ts): kills every child it started that still runs and fails the file naming them.
 * A child that was signalled gets a moment to exit first.
 */
export async function checkChildrenStopped(graceMs = 2_000): Promise<void> {
  const mine = started.splice(0);
  const left = mine.filter(running);
  await Promise.race([Promise.all(left.map(({ child }) => once(child, 'exit'))), new Promise((resolve) => setTimeout(resolve, graceMs))]);
  const stillRunning = left.filter(running);
  for (const { child } of stillRunning) child.kill('SIGKILL');
  if (stillRunning.length > 0) {
    throw new Error(`left running by this file, now killed: ${stillRunning.map((s) => `${s.what} (pid ${s.child.pid})`).join(', ')}`);
  }
}
