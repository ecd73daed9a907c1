import type { AttachmentStore, SweepResult } from '../../src/domain/attachment-store.js';

/** AttachmentStore in a Map, for tests that do not care about files. */
export class InMemoryAttachmentStore implements AttachmentStore {
  readonly files = new Map<string, Buffer>();

  async save(id: string, data: Buffer): Promise<void> {
    this.files.set(id, Buffer.from(data));
  }

  async read(id: string): Promise<Buffer | undefined> {
    return this.files.get(id);
  }

  async remove(id: string): Promise<void> {
    this.files.delete(id);
  }

  async sweep(isOrphan: (id: string) => boolean | Promise<boolean>): Promise<SweepResult> {
    let removed = 0;
    for (const id of [...this.files.keys()]) {
      if ((await isOrphan(id)) && this.files.delete(id)) removed++;
    }
    return { removed, failed: 0 };
  }
}
