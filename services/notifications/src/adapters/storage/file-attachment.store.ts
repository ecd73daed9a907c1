import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { AppError, isAppError } from '@homeops/common';
import type { AttachmentStore } from '../../domain/attachment-store.js';
import { isNotFound, nodeStorageFs, type StorageFs } from './storage-fs.js';

// Ids become file names: no separators, no dots, so `../x` or `.tmp-*` names can never be addressed.
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;

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

  private pathOf(id: string): string {
    if (!SAFE_ID.test(id)) {
      throw new AppError('VALIDATION_FAILED', `Invalid attachment id ${JSON.stringify(id)}`, {
        details: [{ path: 'id', message: 'letters, digits, "-" and "_" only' }],
      });
    }
    return join(this.dir, id);
  }
}
