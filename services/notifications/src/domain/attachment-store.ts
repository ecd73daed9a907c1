/** Attachment bytes kept beside the history file, one file per notification id. */
export interface AttachmentStore {
  /** Writes durably (fsync) before resolving. */
  save(id: string, data: Buffer): Promise<void>;
  /** Resolves the bytes, or undefined when there is none. */
  read(id: string): Promise<Buffer | undefined>;
  remove(id: string): Promise<void>;
}
