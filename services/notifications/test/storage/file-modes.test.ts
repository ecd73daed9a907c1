import { chmod, mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileAttachmentStore } from '../../src/adapters/storage/file-attachment.store.js';
import { YamlNotificationRepository } from '../../src/adapters/storage/yaml-notification.repository.js';
import { attachmentDirOf } from '../../src/build-storage.js';
import { PNG } from '../support/files.js';
import { makeRecord } from './make-record.js';
import { makeTempDir } from './storage-harness.js';

/** `relative path → mode & 0o777` of `dir` and everything under it. */
async function modesUnder(dir: string, prefix = '.'): Promise<Record<string, string>> {
  const modes: Record<string, string> = { [prefix]: ((await stat(dir)).mode & 0o777).toString(8) };
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) Object.assign(modes, await modesUnder(path, `${prefix}/${entry.name}`));
    else modes[`${prefix}/${entry.name}`] = ((await stat(path)).mode & 0o777).toString(8);
  }
  return modes;
}

/** Creates a notification with an attachment, restarts, creates another, and lets a fold and its cache be written. */
async function writeHistory(path: string, observeWhileOpen: (modes: Record<string, string>) => void): Promise<void> {
  const attachments = new FileAttachmentStore(attachmentDirOf(path));
  for (let start = 0; start < 2; start++) {
    const repo = new YamlNotificationRepository(path, { compactWhenQuietMs: 0 });
    await repo.open();
    const record = makeRecord({ attachment: { filename: 'door.png', contentType: 'image/png', size: PNG.length } });
    await attachments.save(record.id, PNG);
    await repo.insert(record);
    observeWhileOpen(await modesUnder(join(path, '..')));
    await repo.close(); // folds: snapshot by temp file and rename, then the index cache
  }
}

describe('files and folders the history writes', () => {
  it('creates every file 0600 and every folder it makes 0700 (history, journal, cache, lock, attachments)', async () => {
    const data = join(await makeTempDir(), 'data');
    const path = join(data, 'notifications.yaml');
    let whileOpen: Record<string, string> = {};

    await writeHistory(path, (modes) => (whileOpen = modes));

    const after = await modesUnder(data);
    expect(Object.keys(whileOpen)).toContain('./notifications.yaml.lock');
    expect(Object.keys(after)).toEqual(expect.arrayContaining(['./notifications.yaml', './notifications.yaml.cache', './notifications.attachments']));
    for (const modes of [whileOpen, after]) {
      for (const [name, mode] of Object.entries(modes)) expect([name, mode]).toEqual([name, name === '.' || name.endsWith('.attachments') ? '700' : '600']);
    }
  });

  it('tightens files of an older version when it rewrites them, and leaves a folder the user made as it is', async () => {
    const data = join(await makeTempDir(), 'data');
    const path = join(data, 'notifications.yaml');
    await mkdir(data);
    await chmod(data, 0o755);
    await writeFile(path, '');
    await writeFile(`${path}.1.journal`, '');
    await chmod(path, 0o644);
    await chmod(`${path}.1.journal`, 0o644);

    await writeHistory(path, () => undefined);

    const after = await modesUnder(data);
    expect(after['.']).toBe('755');
    for (const [name, mode] of Object.entries(after)) if (name !== '.') expect([name, mode]).toEqual([name, name.endsWith('.attachments') ? '700' : '600']);
  });
});
