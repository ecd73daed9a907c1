/** What a sweep did: files deleted, and files it could not delete (left for the next start). */
export interface SweepResult {
  removed: number;
  failed: number;
}

/** Attachment bytes kept beside the history file, one file per notification id. */
export interface AttachmentStore {
  /** Writes durably (fsync) before resolving; refuses with STORAGE_FULL, storing nothing, past the store's byte budget. */
  save(id: string, data: Buffer): Promise<void>;
  /** Resolves the bytes, or undefined when there is none. */
  read(id: string): Promise<Buffer | undefined>;
  remove(id: string): Promise<void>;
  /**
   * Deletes the stored files (and leftovers of interrupted saves) whose id `isOrphan` accepts; files that are not the
   * store's own are never touched. Must not run while a save is in progress. Optional: stores without it are not swept.
   */
  sweep?(isOrphan: (id: string) => boolean | Promise<boolean>): Promise<SweepResult>;
}
