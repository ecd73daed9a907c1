import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { YamlNotificationRepository } from '../../src/adapters/storage/yaml-notification.repository.js';
import { makeTempDir } from './storage-harness.js';

const CHILD = fileURLToPath(new URL('./crash-writer.child.ts', import.meta.url));

interface Acknowledged {
  inserted: string[];
  read: string[];
}

/** Runs the writer child, SIGKILLs it once it acknowledged `killAfter` changes, and returns what it acknowledged. */
function runAndKill(path: string, killAfter: number): Promise<Acknowledged> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', CHILD, path], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acknowledged: Acknowledged = { inserted: [], read: [] };
    let buffered = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!; // a line cut by the kill was never fully printed: not counted
      for (const line of lines) {
        const [kind, id] = line.split(' ');
        if (kind === 'insert') acknowledged.inserted.push(id!);
        if (kind === 'read') acknowledged.read.push(id!);
      }
      if (acknowledged.inserted.length + acknowledged.read.length >= killAfter) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer exited on its own: ${stderr}`));
      else resolve(acknowledged);
    });
  });
}

describe('YamlNotificationRepository after kill -9', () => {
  it('keeps every acknowledged change across repeated SIGKILLs at random moments', { timeout: 60_000 }, async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    const all: Acknowledged = { inserted: [], read: [] };
    for (let round = 0; round < 4; round++) {
      // A random moment, counted in acknowledged changes (the writer makes thousands a second) rather than in milliseconds.
      const acknowledged = await runAndKill(path, 2_000 + Math.floor(Math.random() * 30_000));
      all.inserted.push(...acknowledged.inserted);
      all.read.push(...acknowledged.read);
      expect(acknowledged.inserted.length).toBeGreaterThan(0);

      const repo = new YamlNotificationRepository(path, { compactOnClose: round % 2 === 0 });
      await repo.open(); // also takes over the lock the killed child left behind
      const missing: string[] = [];
      for (const id of all.inserted) if ((await repo.get(id)) === undefined) missing.push(id);
      const unread: string[] = [];
      for (const id of all.read) if ((await repo.get(id))?.read !== true) unread.push(id);
      expect({ round, missing, unread }).toEqual({ round, missing: [], unread: [] });
      expect((await repo.stats()).records).toBeGreaterThanOrEqual(all.inserted.length);
      await repo.close();
    }
  });
});
