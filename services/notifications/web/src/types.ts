// The API's shapes, inferred from the service's own response schemas (types only: no zod in the bundle), so a change
// to what the service answers breaks this dashboard's typecheck instead of its users.
import type { Heartbeat as HeartbeatPlan } from '../../src/domain/plans/plan.js';
import type { CreateNotificationBody } from '../../src/http/notification.schemas.js';
import type { NotificationView, RecipientSummaryView, SoundListView } from '../../src/http/response.schemas.js';

/** A stored notification, as every route returns it. */
export type Notification = NotificationView;

/** GET /recipients, one entry. */
export type RecipientSummary = RecipientSummaryView;

/** GET /sounds, one entry. */
export type Sound = SoundListView['sounds'][number];

/** What a scheduled send or a heartbeat sends: a create body without an attachment (the plans' own schema). */
export type PlannedNotification = Omit<CreateNotificationBody, 'attachment'>;

// plans.router.ts keeps its view schemas to itself, so these two follow scheduledView and heartbeatView there: the
// notification is the request schema's type and the state the plan's own, the rest are its times as ISO strings.

/** GET /scheduled, one entry: a send not gone out yet. */
export interface Scheduled {
  key: string;
  sendAt: string;
  createdAt: string;
  notification: PlannedNotification;
}

/** GET /heartbeats, one entry. */
export interface Heartbeat {
  name: string;
  intervalSeconds: number;
  graceSeconds: number;
  recoveredNote: boolean;
  state: HeartbeatPlan['status']['state'];
  lastPingAt: string;
  /** Since when it is down; null while up. */
  missedAt: string | null;
  /** When it is missed without a ping before; null while down. */
  nextDueAt: string | null;
  pingPath: string;
  notification: PlannedNotification;
}
