import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from './storage-harness.js';

const CHILD = fileURLToPath(new URL('./lock-racer.child.ts', import.meta.url));
const PAIRS = 20;
// Pairs racing at once. Each racer process serves one race per round, on a fresh lock file each time: the start of
// a TypeScript process is what takes the time, and it is not part of the race (a racer has loaded before "go").
const CONCURRENT_PAIRS = 4;
const children: ChildProcess[] = [];

function killAll(): void {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
}

afterEach(killAll);

/** A racer process that has loaded: `go` sends it one race on a lock file; `outcome` resolves its next line. */
interface Racer {
  go: (lockPath: string) => void;
  outcome: () => Promise<string>;
}

async function startRacer(): Promise<Racer> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', CHILD], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const exited = new Promise<never>((_, reject) => child.on('exit', (code) => reject(new Error(`racer exited with ${code}`))));
  exited.catch(() => undefined);
  const next = async () => (await Promise.race([lines.next(), exited])).value as string;
  expect(await next()).toBe('ready');
  return { go: (lockPath) => child.stdin!.write(`go ${lockPath}\n`), outcome: next };
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('FileLock takeover race between processes', () => {
  it(`lets at most one of two processes starting together on a stale lock hold it (${PAIRS} pairs)`, { timeout: 120_000 }, async () => {
    const dead = await deadPid();
    const pairs = await Promise.all(Array.from({ length: CONCURRENT_PAIRS }, () => Promise.all([startRacer(), startRacer()])));
    const race = async (racers: Racer[]): Promise<string[]> => {
      const lockPath = join(await makeTempDir(), 'notifications.yaml.lock');
      // A dead pid, with a start time no live process of that pid can have.
      await writeFile(lockPath, `${dead}\n${hostname()}\n\n1\n`);
      const outcomes = racers.map((racer) => racer.outcome());
      for (const racer of racers) racer.go(lockPath);
      return Promise.all(outcomes);
    };
    const outcomes: string[][] = [];
    while (outcomes.length < PAIRS) outcomes.push(...(await Promise.all(pairs.map(race))));

    const held = outcomes.map((pair) => pair.filter((line) => line === 'held').length);
    expect(held).toEqual(Array.from({ length: PAIRS }, () => 1));
    for (const pair of outcomes) {
      expect(pair.find((line) => line !== 'held')).toMatch(/^refused STORAGE_UNAVAILABLE the history is already in use by process \d+ on /);
    }
  });
});
