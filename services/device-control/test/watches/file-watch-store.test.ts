import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileWatchStore } from '../../src/adapters/watches/file-watch-store.js';
import { parseWatch } from '../../src/http/watches.schemas.js';

// WATCHES_FILE: written by hand (YAML) or by PUT /watches (JSON), checked as the API checks a watch.
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function fileWith(text?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'watches-'));
  dirs.push(dir);
  const file = join(dir, 'watches.yaml');
  if (text !== undefined) writeFileSync(file, text);
  return file;
}

describe('FileWatchStore', () => {
  it('reads a hand-written YAML file with the defaults filled in, and writes back what it read', async () => {
    const file = fileWith(
      ['watches:', '  garage-open:', '    condition: { kind: doorOpen, device: garage-1, minutes: 30 }', '    notify: { recipient: family, priority: 2 }'].join(
        '\n',
      ),
    );
    const store = new FileWatchStore(file, parseWatch);
    const watches = await store.load();
    expect(watches).toEqual([
      {
        name: 'garage-open',
        condition: { kind: 'doorOpen', device: 'garage-1', channel: 0, minutes: 30 },
        notify: { recipient: 'family', priority: 2 },
        clearSeconds: 60,
      },
    ]);
    await store.save(watches);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await new FileWatchStore(file, parseWatch).load()).toEqual(watches);
    expect(JSON.parse(readFileSync(file, 'utf8')).watches['garage-open'].condition.kind).toBe('doorOpen');
  });

  it('is empty without a file, and stops the start on a watch it cannot take, naming the watch and the field', async () => {
    expect(await new FileWatchStore(fileWith(), parseWatch).load()).toEqual([]);
    const bad = fileWith('watches:\n  door:\n    condition: { kind: doorOpen, device: g, minutes: -1 }\n    notify: { recipient: family }\n');
    await expect(new FileWatchStore(bad, parseWatch).load()).rejects.toThrow(/watch "door": condition.minutes/);
    await expect(new FileWatchStore(fileWith('watches: [1, 2'), parseWatch).load()).rejects.toThrow(/not YAML or JSON/);
  });
});
