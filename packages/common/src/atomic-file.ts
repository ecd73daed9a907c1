import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Writes `text` to a temp file beside `file` (mode 0600 unless told, whatever the umask), synced, and hands its path
 * to `place`, which puts it in the file's place; the temp file is gone afterwards whatever happened.
 */
async function placeSyncedTemp<T>(file: string, text: string, mode: number, place: (temp: string) => Promise<T>): Promise<T> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(text);
    await handle.sync();
    await handle.close();
    await chmod(temp, mode);
    return await place(temp);
  } finally {
    await handle.close().catch(() => {});
    await unlink(temp).catch(() => {});
  }
}

/**
 * Replaces `file` with `text` all at once: written to a temp file beside it (mode 0600 unless told, whatever the
 * umask), synced, then renamed over it, so a crash leaves the old content or the new, never half of one.
 */
export async function writeFileAtomically(file: string, text: string, options: { mode?: number } = {}): Promise<void> {
  await placeSyncedTemp(file, text, options.mode ?? 0o600, (temp) => rename(temp, file));
}

/**
 * Creates `file` holding `text` only if it does not exist yet, whole or not at all: written and synced under a temp
 * name, then hard-linked to its name (which fails when the name exists), so a process that finds the file also finds
 * all of it. False when the file already existed (another process made it first).
 */
export async function createFileExclusively(file: string, text: string, options: { mode?: number } = {}): Promise<boolean> {
  return placeSyncedTemp(file, text, options.mode ?? 0o600, (temp) =>
    link(temp, file).then(
      () => true,
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'EEXIST') return false;
        throw err;
      },
    ),
  );
}
