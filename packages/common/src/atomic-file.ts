import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Replaces `file` with `text` all at once: written to a temp file beside it (mode 0600 unless told, whatever the
 * umask), synced, then renamed over it, so a crash leaves the old content or the new, never half of one.
 */
export async function writeFileAtomically(file: string, text: string, options: { mode?: number } = {}): Promise<void> {
  const mode = options.mode ?? 0o600;
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(text);
    await handle.sync();
    await handle.close();
    await chmod(temp, mode);
    await rename(temp, file);
  } catch (err) {
    await handle.close().catch(() => {});
    await unlink(temp).catch(() => {});
    throw err;
  }
}

/**
 * Creates `file` holding `text` only if it does not exist yet, whole or not at all: written and synced under a temp
 * name, then hard-linked to its name (which fails when the name exists), so a process that finds the file also finds
 * all of it. False when the file already existed (another process made it first).
 */
export async function createFileExclusively(file: string, text: string, options: { mode?: number } = {}): Promise<boolean> {
  const mode = options.mode ?? 0o600;
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(text);
    await handle.sync();
    await handle.close();
    await chmod(temp, mode);
    return await link(temp, file).then(
      () => true,
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'EEXIST') return false;
        throw err;
      },
    );
  } finally {
    await handle.close().catch(() => {});
    await unlink(temp).catch(() => {});
  }
}
