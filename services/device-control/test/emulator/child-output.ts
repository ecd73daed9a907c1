import type { ChildProcess } from 'node:child_process';

/** Everything a child process writes to stdout and stderr, for secret scans and waiting on log lines. */
export class ChildOutput {
  text = '';

  constructor(child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => (this.text += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (this.text += chunk.toString('utf8')));
  }

  /** The secrets (given by the test) that appear anywhere in the output. */
  leaked(secrets: Record<string, string>): string[] {
    return Object.entries(secrets)
      .filter(([, value]) => value.length > 0 && this.text.includes(value))
      .map(([name]) => name);
  }
}

/** Polls until the check returns a value (not undefined/false), or fails with the description. */
export async function eventually<T>(check: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<Exclude<T, false | undefined>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value as Exclude<T, false | undefined>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
