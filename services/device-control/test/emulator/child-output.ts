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
    return leakedSecrets(this.text, secrets);
  }
}

/** The names of the secrets (given by the test) whose values appear anywhere in `text`. */
export function leakedSecrets(text: string, secrets: Record<string, string>): string[] {
  return Object.entries(secrets)
    .filter(([, value]) => value.length > 0 && text.includes(value))
    .map(([name]) => name);
}
