import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { AppError, isAppError } from '@homeops/common';
import type { AttachmentStore, SweepResult } from '../../domain/attachment-store.js';
import { isNotFound, nodeStorageFs, type StorageFs } from './storage-fs.js';

// Ids become file names: no separators, no dots, so `../x` or `.tmp-*` names can never be addressed.
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;
// The names save() writes: `<id>` when done, `<id>.tmp-<12 hex>` while (or when a crash stopped it) writing.
const STORE_NAME = /^([A-Za-z0-9_-]{1,128})(\.tmp-[0-9a-f]{12})?$/;

/** Attachment bytes as one file per notification id in a directory beside the history, written atomically. */
export class FileAttachmentStore implements AttachmentStore {
  constructor(
    readonly dir: string,
    private readonly fs: StorageFs = nodeStorageFs,
  ) {}

  async save(id: string, data: Buffer): Promise<void> {
    const path = this.pathOf(id);
    const temp = `${path}.tmp-${randomBytes(6).toString('hex')}`;
    try {
      await this.fs.mkdir(this.dir);
      const file = await this.fs.open(temp, 'w');
      try {
        await file.append(data);
        await file.sync();
      } finally {
        await file.close();
      }
      await this.fs.rename(temp, path);
      await this.fs.syncDir(this.dir);
    } catch (error) {
      await this.fs.unlink(temp).catch(() => undefined);
      throw new AppError('STORAGE_UNAVAILABLE', `Cannot write attachment ${id}: ${(error as Error).message}`, { cause: error });
    }
  }

  async read(id: string): Promise<Buffer | undefined> {
    try {
      return await this.fs.readFile(this.pathOf(id));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw isAppError(error) ? error : new AppError('STORAGE_UNAVAILABLE', `Cannot read attachment ${id}: ${(error as Error).message}`, { cause: error });
    }
  }

  async remove(id: string): Promise<void> {
    try {
      await this.fs.unlink(this.pathOf(id));
      await this.fs.syncDir(this.dir);
    } catch (error) {
      if (isNotFound(error)) return;
      throw isAppError(error) ? error : new AppError('STORAGE_UNAVAILABLE', `Cannot remove attachment ${id}: ${(error as Error).message}`, { cause: error });
    }
  }

  /** One readdir; a file whose name is not one save() writes is never deleted. */
  async sweep(isOrphan: (id: string) => boolean | Promise<boolean>): Promise<SweepResult> {
    const result: SweepResult = { removed: 0, failed: 0 };
    let names: string[];
    try {
      names = await this.fs.readdir(this.dir);
    } catch (error) {
      if (isNotFound(error)) return result;
      throw new AppError('STORAGE_UNAVAILABLE', `Cannot list attachments: ${(error as Error).message}`, { cause: error });
    }
    for (const name of names) {
      const id = STORE_NAME.exec(name)?.[1];
      if (id === undefined || !(await isOrphan(id))) continue;
      try {
        await this.fs.unlink(join(this.dir, name));
        result.removed++;
      } catch (error) {
        // A directory of that name, or a disk error: leave it, and let the caller say how many stayed.
        if (!isNotFound(error)) result.failed++;
      }
    }
    // Without the fsync a power cut may bring a deleted orphan back; the next start sweeps it again.
    if (result.removed > 0) await this.fs.syncDir(this.dir).catch(() => undefined);
    return result;
  }

  private pathOf(id: string): string {
    if (!SAFE_ID.test(id)) {
      throw new AppError('VALIDATION_FAILED', `Invalid attachment id ${JSON.stringify(id)}`, {
        details: [{ path: 'id', message: 'letters, digits, "-" and "_" only' }],
      });
    }
    return join(this.dir, id);
  }
}
