import { type Access, lacking, type ScopeChoice } from '@homeops/web-kit';
import type { RecipientSummary } from './types.js';

/** The scopes a recipients limit applies to. */
export type RecipientScope = 'notifications:send' | 'notifications:read';

/** The recipients `scope` is limited to; undefined: every recipient; none when the caller lacks the scope. */
export function recipientsOf(access: Access, scope: RecipientScope): readonly string[] | undefined {
  const grant = access.grant(scope);
  return grant ? grant.recipients : [];
}

/** Why the caller may not use `scope` for this recipient (its scope or the grant's limit), or null. */
export function recipientBlock(access: Access, scope: RecipientScope, recipient: string): string | null {
  const missing = access.lacks(scope);
  if (missing) return missing;
  const limit = recipientsOf(access, scope);
  return limit === undefined || limit.includes(recipient) ? null : lacking(scope, `for ${recipient}`);
}

/**
 * The recipients this caller may read: the listed ones it reaches, then those its limit names that have no history
 * yet (a family member's inbox shows before its first notification).
 */
export function readableRecipients(list: readonly RecipientSummary[], access: Access): RecipientSummary[] {
  const limit = recipientsOf(access, 'notifications:read');
  if (limit === undefined) return [...list];
  const listed = list.filter((r) => limit.includes(r.recipient));
  const unlisted = limit.filter((name) => !listed.some((r) => r.recipient === name));
  return [...listed, ...unlisted.map((recipient) => ({ recipient, total: 0, unread: 0 }))];
}

/** This service's scopes for the create form; the recipient limits are picked from the recipients listed or typed. */
export function notificationScopeChoices(recipients: readonly string[]): ScopeChoice[] {
  const options = recipients.map((r) => ({ value: r, text: r }));
  return [
    { scope: 'admin', text: 'everything, tokens included' },
    { scope: 'metrics', text: 'GET /metrics' },
    {
      scope: 'notifications:send',
      text: 'send, and resend',
      limits: [{ field: 'recipients', text: 'Only to these recipients', options, other: true }],
      numbers: [
        { field: 'maxPriority', text: 'Highest priority (-2 to 2; empty: any, 2 rings an emergency)', min: -2, max: 2 },
        { field: 'createsPerMinute', text: 'Sends a minute at most (empty: no limit)', min: 1, max: 10_000 },
      ],
    },
    {
      scope: 'notifications:read',
      text: 'inboxes, live events, attachments, read and unread, delete',
      limits: [{ field: 'recipients', text: 'Only these inboxes', options, other: true }],
    },
  ];
}
