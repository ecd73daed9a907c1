import { AppError } from '@homeops/common/core';
import type { NotificationRepository } from './notification-repository.js';

/** What a copy did, per recipient and in all. */
export interface CopyReport {
  copied: number;
  /** Already in the target (a copy run again after an interruption). */
  skipped: number;
  recipients: number;
}

const PAGE = 500;

/**
 * Copies every notification of one history into another (the YAML file into PostgreSQL), recipient by recipient,
 * a page at a time so a million records never sit in memory at once. Records the target holds already are skipped,
 * so a copy that was interrupted can be run again. The source is only read.
 */
export async function copyHistory(
  from: NotificationRepository,
  to: NotificationRepository,
  progress: (report: CopyReport) => void = () => undefined,
): Promise<CopyReport> {
  const report: CopyReport = { copied: 0, skipped: 0, recipients: 0 };
  for (const { recipient } of await from.recipients()) {
    let before: string | undefined;
    do {
      const page = await from.list(recipient, { limit: PAGE, ...(before === undefined ? {} : { before }) });
      // Oldest first within a page: records created in the same millisecond keep their order in the target.
      const outcomes = await Promise.all([...page.items].reverse().map((record) => to.insert(record).then(() => true, alreadyThere)));
      for (const copied of outcomes) report[copied ? 'copied' : 'skipped'] += 1;
      before = page.nextCursor ?? undefined;
      progress(report);
    } while (before !== undefined);
    report.recipients += 1;
  }
  return report;
}

/** False for a record the target has already; any other failure stops the copy. */
function alreadyThere(err: unknown): false {
  if (err instanceof AppError && err.code === 'NOTIFICATION_EXISTS') return false;
  throw err;
}
