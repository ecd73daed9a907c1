import type { EventStreamHub } from '@homeops/common';
import type { CreateDeps } from '../domain/create-notification.use-case.js';
import type { NotificationContext } from '../domain/notification-context.js';
import type { Planner } from '../domain/plans/planner.js';
import type { SendRates } from './send-limits.js';

/** What the notification routers call into. */
export interface NotificationRoutesDeps {
  ctx: NotificationContext;
  create: CreateDeps;
  hub: EventStreamHub;
  /** Creates with `sendAt` or `delaySeconds` are scheduled through it. */
  planner: Planner;
  /** The send rates of tokens that have one (createsPerMinute). */
  sendRates: SendRates;
}
