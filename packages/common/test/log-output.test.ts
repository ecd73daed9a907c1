import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('./fixtures/log-burst.child.ts', import.meta.url));

function run(how: string, count: number): { lines: Array<{ n: number; msg: string }>; status: number | null } {
  const out = spawnSync(process.execPath, ['--conditions=source', '--import', 'tsx', CHILD, how, String(count)], { encoding: 'utf8', timeout: 30_000 });
  const lines = out.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { n: number; msg: string });
  return { lines, status: out.status };
}

const MIX = fileURLToPath(new URL('./fixtures/log-mix.child.ts', import.meta.url));

/** The lines of the mixed workload, written by the default output or line by line by pino.destination; time aside. */
function mixed(how: 'default' | 'plain'): string[] {
  const out = spawnSync(process.execPath, ['--conditions=source', '--import', 'tsx', MIX, how], { encoding: 'utf8', timeout: 30_000 });
  return out.stdout.split('\n').map((line) => line.replace(/"time":\d+,/, ''));
}

describe('the default log output (one asynchronous pino.destination per process)', () => {
  it('writes exactly the lines, in the order, that pino.destination written line by line does', () => {
    const plain = mixed('plain');
    expect(plain.length).toBeGreaterThan(500);
    expect(mixed('default')).toEqual(plain);
  });

  it('writes every line of a burst, in order, and lines of later turns after them', () => {
    const { lines } = run('stay', 2000);
    expect(lines.map((l) => l.n)).toEqual(Array.from({ length: 2001 }, (_, i) => i));
    expect(lines.at(-1)?.msg).toBe('later');
  });

  it('loses nothing logged in the turn the process exits in', () => {
    const { lines, status } = run('exit-now', 500);
    expect(status).toBe(0);
    expect(lines.map((l) => l.n)).toEqual(Array.from({ length: 500 }, (_, i) => i));
  });

  it('loses nothing logged just before an uncaught exception ends the process', () => {
    const { lines, status } = run('throw', 300);
    expect(status).not.toBe(0);
    expect(lines).toHaveLength(300);
  });
});
