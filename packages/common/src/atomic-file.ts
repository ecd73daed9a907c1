import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, unlink } from 'node:fs/promises';
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
