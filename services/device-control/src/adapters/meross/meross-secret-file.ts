import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

let writes = 0;

/** A temporary name beside the file, unique in this process. */
export function tempPathOf(file: string): string {
  writes += 1;
  return `${file}.${process.pid}.${writes}.tmp`;
}

/**
 * Writes a file that holds account secrets: its folder made 0700 when missing, the text written 0600 under a temporary
 * name, then renamed over the file, so a crash leaves the old file or the new one, never half of either.
 */
export async function writeSecretFile(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temp = tempPathOf(file);
  await writeFile(temp, text, { mode: 0o600 });
  await chmod(temp, 0o600);
  await rename(temp, file);
}
