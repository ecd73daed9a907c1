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
// Pairs racing at once: the start of 40 TypeScript processes is what takes the time.
const CONCURRENT_PAIRS = 4;
const children: ChildProcess[] = [];

function killAll(): void {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
}

afterEach(killAll);

/** A racer that has loaded and waits for "go"; `outcome` is its first line after that. */
async function startRacer(lockPath: string): Promise<{ go: () => void; outcome: Promise<string> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', CHILD, lockPath], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const exited = new Promise<never>((_, reject) => child.on('exit', (code) => reject(new Error(`racer exited with ${code}`))));
  const next = async () => (await Promise.race([lines.next(), exited])).value as string;
  expect(await next()).toBe('ready');
  return { go: () => child.stdin!.write('go\n'), outcome: next() };
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('FileLock takeover race between processes', () => {
  it(`lets at most one of two processes starting together on a stale lock hold it (${PAIRS} pairs)`, { timeout: 120_000 }, async () => {
    const dead = await deadPid();
    const race = async (): Promise<string[]> => {
      const lockPath = join(await makeTempDir(), 'notifications.yaml.lock');
      // A dead pid, with a start time no live process of that pid can have.
      await writeFile(lockPath, `${dead}\n${hostname()}\n\n1\n`);
      const racers = await Promise.all([startRacer(lockPath), startRacer(lockPath)]);
      for (const racer of racers) racer.go();
      return Promise.all(racers.map((racer) => racer.outcome));
    };
    const outcomes: string[][] = [];
    while (outcomes.length < PAIRS) {
      outcomes.push(...(await Promise.all(Array.from({ length: CONCURRENT_PAIRS }, race))));
      killAll();
    }

    const held = outcomes.map((pair) => pair.filter((line) => line === 'held').length);
    expect(held).toEqual(Array.from({ length: PAIRS }, () => 1));
    for (const pair of outcomes) {
      expect(pair.find((line) => line !== 'held')).toMatch(/^refused STORAGE_UNAVAILABLE the history is already in use by process \d+ on /);
    }
  });
});
