import type { ChannelName } from './notification.js';
import type { PushMessage } from './push-provider.js';

/** The alias of PROVIDER_USER_KEY: a delivery without `to` goes there. */
export const DEFAULT_RECIPIENT_ALIAS = 'default';

/** A recipient's second channel, as records and /health name it: never its token. */
export interface FallbackTarget {
  channel: Exclude<ChannelName, 'pushover'>;
  /** `ntfy.example.com/alerts` or `alice@example.com`: unique per recipient. */
  name: string;
}

/** The last result of one fallback target, for /health. */
export interface FallbackTargetStatus extends FallbackTarget {
  recipient: string;
  lastResult: 'sent' | 'failed' | null;
  at: string | null;
  error?: string;
}

/** The recipients' fallback targets (ntfy, mail): used when Pushover cannot deliver. Rejects with a text free of secrets. */
export interface FallbackChannels {
  /** The targets of a recipient alias (`default` included); empty when it has none. */
  targetsOf(alias: string): FallbackTarget[];
  send(alias: string, target: FallbackTarget, message: PushMessage): Promise<void>;
  status(): FallbackTargetStatus[];
}

/** When fallbacks step in, and how a failing target is retried. */
export interface FallbackSettings {
  /** Pushover has not delivered this long after creation: the fallbacks are used (FALLBACK_AFTER_SECONDS). */
  afterMs: number;
  /** Bound on one send to a fallback target. */
  timeoutMs: number;
  minDelayMs: number;
  maxDelayMs: number;
  maxAttempts: number;
}
