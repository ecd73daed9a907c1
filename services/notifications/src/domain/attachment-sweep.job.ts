import type { NotificationContext } from './notification-context.js';
import { isNotificationId, notificationIdTime } from './notification-id.js';

/** With a shared store, another instance may be between saving a file and inserting its record: young files stay. */
const SHARED_GRACE_MS = 60 * 60 * 1000;

/**
 * Deletes attachment files no stored record references: left by a crash between the file save and the insert of a
 * create, or between the record removal and the file removal of a delete. Run after the history is open and before
 * requests are taken, so a create cannot save a file the sweep then mistakes for an orphan. Never throws.
 */
export async function sweepOrphanAttachments(ctx: NotificationContext): Promise<void> {
  const { attachments, repository, logger } = ctx;
  if (!attachments.sweep) return;
  try {
    const { removed, failed } = await attachments.sweep(
      // A file whose name is not a notification id was not written for a notification, so it stays.
      async (id) =>
        isNotificationId(id) && !(repository.shared && notificationIdTime(id) > ctx.clock.now() - SHARED_GRACE_MS) && (await repository.get(id)) === undefined,
    );
    if (failed > 0) logger.warn({ removed, failed }, `attachment sweep: removed ${removed} orphaned files, ${failed} could not be deleted`);
    else if (removed > 0) logger.info({ removed }, `attachment sweep: removed ${removed} orphaned files`);
  } catch (err) {
    logger.warn({ err }, 'attachment sweep failed; orphaned files stay until the next start');
  }
}
