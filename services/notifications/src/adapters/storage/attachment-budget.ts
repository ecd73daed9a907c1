import { AppError, SingleFlight } from '@homeops/common';

// Instances sharing the folder (PostgreSQL) add files this one does not count: the folder is summed again this often.
const SUM_AGAIN_AFTER_SAVES = 100;

/**
 * The bytes an attachment folder may hold. The folder is summed once (at the first save), then kept current by
 * each save and removal; it is summed again every so often and before any refusal, so room freed by another
 * instance, or by hand, is seen. Concurrent saves reserve their bytes first, so together they stay within the budget.
 */
export class AttachmentBudget {
  private used: number | undefined;
  private readonly summing = new SingleFlight<number>();
  private reserved = 0;
  private savesSinceSum = 0;

  /** `maxBytes` 0: no limit (nothing is summed). */
  constructor(
    readonly maxBytes: number,
    private readonly sumFolder: () => Promise<number>,
  ) {}

  /** Reserves room for `bytes`, or refuses with STORAGE_FULL; every reservation ends in saved() or cancel(). */
  async reserve(bytes: number): Promise<void> {
    if (this.maxBytes === 0) return;
    let used = await this.usedBytes(this.savesSinceSum >= SUM_AGAIN_AFTER_SAVES);
    if (used + this.reserved + bytes > this.maxBytes) used = await this.usedBytes(true);
    // No await between this check and the reservation: concurrent saves see each other's bytes.
    if (used + this.reserved + bytes > this.maxBytes) {
      throw new AppError(
        'STORAGE_FULL',
        `Attachment storage is full: the budget is ${this.maxBytes} bytes (ATTACHMENTS_MAX_BYTES), ${used + this.reserved} are in use and this attachment has ${bytes}`,
      );
    }
    this.reserved += bytes;
  }

  saved(bytes: number): void {
    if (this.maxBytes === 0) return;
    this.reserved -= bytes;
    if (this.used !== undefined) this.used += bytes;
    this.savesSinceSum++;
  }

  cancel(bytes: number): void {
    if (this.maxBytes !== 0) this.reserved -= bytes;
  }

  removed(bytes: number): void {
    if (this.used !== undefined) this.used = Math.max(0, this.used - bytes);
  }

  /** After changes it did not follow one by one (a sweep): summed again at the next save. */
  forget(): void {
    this.used = undefined;
  }

  private usedBytes(fresh: boolean): Promise<number> {
    if (!fresh && this.used !== undefined) return Promise.resolve(this.used);
    return this.summing.run(() =>
      this.sumFolder().then((bytes) => {
        this.used = bytes;
        this.savesSinceSum = 0;
        return bytes;
      }),
    );
  }
}
