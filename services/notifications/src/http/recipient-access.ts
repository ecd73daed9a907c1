import { AppError, type Principal } from '@homeops/common';
import type { NotificationContext } from '../domain/notification-context.js';
import type { NotificationRecord } from '../domain/notification.js';
import { planNotFound, type AssertMayChange } from '../domain/plans/planner.js';

/** The scopes a token may limit to some recipients. */
export type RecipientScope = 'notifications:send' | 'notifications:read';

// Word for word what the use-cases answer for an unknown id (test/access/recipient-limits.test.ts compares the bodies):
// a token limited to some inboxes learns nothing about a notification of another one, not even that it exists.
function notFound(id: string): AppError {
  return new AppError('NOTIFICATION_NOT_FOUND', `No notification with id ${id}`);
}

/** The stored notification when `scope` of the caller reaches its recipient; else NOTIFICATION_NOT_FOUND, as for an unknown id. */
export async function reachableNotification(ctx: NotificationContext, principal: Principal, scope: RecipientScope, id: string): Promise<NotificationRecord> {
  const record = await ctx.repository.get(id);
  if (!record || !principal.mayReach(scope, record.recipient)) throw notFound(id);
  return record;
}

/**
 * Throws NOTIFICATION_NOT_FOUND, as for an unknown id, unless `scope` of the caller reaches the notification's
 * recipient. A caller without a recipient limit (the key, admin, an unlimited token) costs no read.
 */
export async function assertMayReachNotification(ctx: NotificationContext, principal: Principal, scope: RecipientScope, id: string): Promise<void> {
  if (principal.recipientsOf(scope) === undefined) return;
  await reachableNotification(ctx, principal, scope, id);
}

/** Whether the caller may read the events and counts of `recipient` (the all-recipients stream and list filter by it). */
export function readableBy(principal: Principal): (recipient: string) => boolean {
  const recipients = principal.recipientsOf('notifications:read');
  return recipients === undefined ? () => true : (recipient) => recipients.includes(recipient);
}

/**
 * A plan belongs to its recipient: replacing one under a key needs notifications:send for the recipient it has now.
 * The refusal names neither that recipient nor the plan (a PUT on a free key succeeds, so the key's use is no secret).
 */
export function mayReplacePlan(principal: Principal): AssertMayChange {
  return (plan) => {
    if (principal.mayReach('notifications:send', plan.notification.recipient)) return;
    const what = `for the ${plan.kind === 'send' ? 'scheduled send' : plan.kind === 'heartbeat' ? 'heartbeat' : 'escalation'} under this key, which belongs to another recipient`;
    throw new AppError('SCOPE_MISSING', `This token lacks the notifications:send scope ${what}`, {
      solution: `Choose another key, or use a token with the notifications:send scope ${what}`,
    });
  };
}

/** Cancelling (or pinging) a plan needs notifications:send for its recipient; else PLAN_NOT_FOUND, as for a key nobody used. */
export function mayCancelPlan(principal: Principal): AssertMayChange {
  return (plan) => {
    if (!principal.mayReach('notifications:send', plan.notification.recipient)) throw planNotFound(plan.kind, plan.key);
  };
}
