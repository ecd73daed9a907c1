import type { ChildProcess } from 'node:child_process';

/** How a child process ended. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Hands what a child process a test started prints (stdout and stderr) to `onOutput`, and resolves when it exits.
 * The child never outlives the test process, even when that dies without running its afterAll hooks.
 */
export function watchChild(child: ChildProcess, onOutput: (text: string) => void): Promise<ExitStatus> {
  child.stdout?.on('data', (chunk: Buffer) => onOutput(chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => onOutput(chunk.toString('utf8')));
  const exited = new Promise<ExitStatus>((done) => child.once('exit', (code, signal) => done({ code, signal })));
  const orphanGuard = () => child.kill('SIGKILL');
  process.once('exit', orphanGuard);
  void exited.then(() => process.removeListener('exit', orphanGuard));
  return exited;
}
