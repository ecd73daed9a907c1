// A watch: a condition on one device that, held long enough, sends one notification per episode and, once it clears,
// ends that episode (cancelling its emergency). Watches are data: from WATCHES_FILE and PUT /watches/{name}.

/** What a watch follows: one condition on one device. */
export type WatchCondition =
  | { kind: 'doorOpen'; device: string; channel: number; minutes: number }
  | { kind: 'offline'; device: string; minutes: number }
  /** Below `watts` for `minutes`, after having been above `afterAbove` (the cycle ran); without it, any time. */
  | { kind: 'powerBelow'; device: string; watts: number; minutes: number; afterAbove?: number | undefined; pollSeconds: number }
  | { kind: 'batteryBelow'; device: string; sensor: string; percent: number; pollSeconds: number }
  | { kind: 'temperature'; device: string; sensor: string; above?: number | undefined; below?: number | undefined; minutes: number; pollSeconds: number }
  /** A leak sensor found water; a smoke alarm rings (not muted, not a test); a door/window sensor open for `seconds`. */
  | { kind: 'leak'; device: string; sensor: string }
  | { kind: 'smoke'; device: string; sensor: string }
  | { kind: 'open'; device: string; sensor: string; seconds: number };

/** Whom a watch notifies, and how. */
export interface WatchNotify {
  recipient: string;
  /** Pushover's -2…2; when not given, the condition's own (2 for the alarms of leak, smoke and door sensors), else 0. */
  priority?: number | undefined;
  sound?: string | undefined;
  title?: string | undefined;
  message?: string | undefined;
  /** Priority 2 only: who else the alarm goes to while nobody acknowledges it (the notification service's `escalate`). */
  escalate?: WatchEscalationStep[] | undefined;
}

/** One escalation step: the recipient, and the seconds after the first notification. */
export interface WatchEscalationStep {
  recipient: string;
  afterSeconds: number;
}

/** A watch as a client or WATCHES_FILE gives it (validated at the edge: http/watches.schemas.ts). */
export interface WatchBody {
  condition: WatchCondition;
  notify: WatchNotify;
  /** How long the condition must be false before the episode ends (debounce against flapping). */
  clearSeconds: number;
}

/** A watch with its name. */
export interface WatchSpec extends WatchBody {
  name: string;
}

/** Cloud messages per hour a watch's readings cost when its device is not reached over the LAN (pushes are free). */
export function messagesPerHour(condition: WatchCondition): number {
  return 'pollSeconds' in condition ? Math.ceil(3_600 / condition.pollSeconds) : 0;
}

/** How long the condition must hold before the episode fires. */
export function holdMs(condition: WatchCondition): number {
  if ('seconds' in condition) return condition.seconds * 1000;
  return 'minutes' in condition ? condition.minutes * 60_000 : 0;
}
