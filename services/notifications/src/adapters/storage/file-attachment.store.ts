import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { AppError, isAppError } from '@homeops/common';
import type { AttachmentStore, SweepResult } from '../../domain/attachment-store.js';
import { AttachmentBudget } from './attachment-budget.js';
import { isNotFound, nodeStorageFs, type StorageFs } from './storage-fs.js';

// Ids become file names: no separators, no dots, so `../x` or `.tmp-*` names can never be addressed.
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;
// The names save() writes: `<id>` when done, `<id>.tmp-<12 hex>` while (or when a crash stopped it) writing.
const STORE_NAME = /^([A-Za-z0-9_-]{1,128})(\.tmp-[0-9a-f]{12})?$/;

/** Limits of the attachment folder. */
export interface AttachmentStoreOptions {
  /** Total bytes of the attachment files; 0 or unset: no limit. */
  maxBytes?: number;
}

/** Attachment bytes as one file per notification id in a directory beside the history, written atomically. */
export class FileAttachmentStore implements AttachmentStore {
  private readonly budget: AttachmentBudget;

  constructor(
    readonly dir: string,
    private readonly fs: StorageFs = nodeStorageFs,
    options: AttachmentStoreOptions = {},
  ) {
    this.budget = new AttachmentBudget(options.maxBytes ?? 0, () => this.sumFiles());
  }

  /** Refuses with STORAGE_FULL, before writing anything, when the bytes would exceed the budget. */
  async save(id: string, data: Buffer): Promise<void> {
    const path = this.pathOf(id);
    try {
      await this.budget.reserve(data.length);
    } catch (error) {
      throw isAppError(error) ? error : new AppError('STORAGE_UNAVAILABLE', `Cannot list attachments: ${(error as Error).message}`, { cause: error });
    }
    try {
      await this.write(path, data);
    } catch (error) {
      this.budget.cancel(data.length);
      throw new AppError('STORAGE_UNAVAILABLE', `Cannot write attachment ${id}: ${(error as Error).message}`, { cause: error });
    }
    this.budget.saved(data.length);
  }

  private async write(path: string, data: Buffer): Promise<void> {
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
      throw error;
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
    const path = this.pathOf(id);
    try {
      const bytes = await this.fs.sizeOf(path);
      await this.fs.unlink(path);
      this.budget.removed(bytes);
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
    if (result.removed > 0) this.budget.forget();
    return result;
  }

  // Finished files only: a temp file is either a save in progress (its bytes are reserved) or a crash's leftover,
  // which the sweep at start removes.
  private async sumFiles(): Promise<number> {
    let names: string[];
    try {
      names = await this.fs.readdir(this.dir);
    } catch (error) {
      if (isNotFound(error)) return 0;
      throw error;
    }
    let total = 0;
    for (const name of names) {
      if (!SAFE_ID.test(name)) continue;
      total += await this.fs.sizeOf(join(this.dir, name)).catch((error: unknown) => {
        if (isNotFound(error)) return 0; // removed meanwhile
        throw error;
      });
    }
    return total;
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
