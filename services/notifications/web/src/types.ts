// The API's shapes, inferred from the service's own response schemas (types only: no zod in the bundle), so a change
// to what the service answers breaks this dashboard's typecheck instead of its users.
import type { HeartbeatView, ScheduledView } from '../../src/http/plan.schemas.js';
import type { NotificationView, RecipientSummaryView, SoundListView } from '../../src/http/response.schemas.js';

/** A stored notification, as every route returns it. */
export type Notification = NotificationView;

/** GET /recipients, one entry. */
export type RecipientSummary = RecipientSummaryView;

/** GET /sounds, one entry. */
export type Sound = SoundListView['sounds'][number];

/** GET /scheduled, one entry: a send not gone out yet. */
export type Scheduled = ScheduledView;

/** GET /heartbeats, one entry. */
export type Heartbeat = HeartbeatView;
