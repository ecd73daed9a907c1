import type { NotificationRecord } from './notification.js';

/** One message as the provider should deliver it: the deliverable fields of a record, plus the image bytes. */
export type PushMessage = Pick<
  NotificationRecord,
  'title' | 'message' | 'priority' | 'sound' | 'url' | 'urlTitle' | 'html' | 'monospace' | 'ttl' | 'device'
> & {
  /** When the notification was created (ISO time): Pushover shows it, so a late delivery says when it happened. */
  createdAt?: string;
  /** The recipient alias whose key it goes to (the provider's default key when absent). */
  to?: string;
  /** Priority 2: repeat every `retry` s until acknowledged or `expire` s passed; Pushover calls `callback` on acknowledgement. */
  emergency?: { retry: number; expire: number; callback?: string; tags?: string };
  /** Images only; Pushover shows them inline. */
  attachment?: { filename: string; contentType: string; data: Buffer };
};

/** What the provider returns for an accepted message. */
export interface PushReceipt {
  /** Provider's request id. */
  request: string;
  /** Emergency priority only: the receipt to poll acknowledgement with. */
  receipt?: string;
  /** What the provider left out of the message or shortened, and why (e.g. an attachment to an encrypted recipient). */
  note?: string;
}

/** What is known about a failed send beyond its text. */
export interface DeliveryErrorDetails {
  status?: number;
  errors?: string[];
  quotaExhausted?: boolean;
  /** Sending was paused (spent quota, rejection circuit open): the delivery waits until then (ISO time) instead of failing. */
  waitUntil?: string;
  /** The request may have reached Pushover before the failure (no answer in time, connection cut after writing). */
  maybeDelivered?: boolean;
}

/** Why a send failed, and whether trying again can help. */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly details: DeliveryErrorDetails = {},
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

/** Provider diagnostics for /health; never carries a secret. */
export interface ProviderStatus {
  enabled: boolean;
  lastSuccessAt: string | null;
  lastError: { message: string; at: string } | null;
  /** From X-Limit-App-Remaining / X-Limit-App-Reset, when the provider sent them. */
  quota: { limit: number | null; remaining: number | null; resetAt: string | null } | null;
  /** Each recipient alias and what Pushover's key validation said (never the key). */
  recipients?: RecipientCheck[];
  /** Open after repeated rejections: nothing is sent until a validation call succeeds. */
  circuit?: { open: boolean; since: string | null; reason: string | null; nextProbeAt: string | null };
}

/** The outcome of validating one recipient's key (and device names) with Pushover. */
export interface RecipientCheck {
  recipient: string;
  state: 'unchecked' | 'valid' | 'invalid' | 'unreachable';
  problem?: string;
  /** The devices Pushover knows for the key (device names are not secret). */
  devices?: string[];
  checkedAt?: string;
}

/** Sends push messages (Pushover in production); rejects with DeliveryError. */
export interface PushProvider extends ProviderExtras {
  readonly enabled: boolean;
  send(message: PushMessage): Promise<PushReceipt>;
  status(): ProviderStatus;
}

/** Where an emergency notification's alarm stands at Pushover. */
export interface ReceiptStatus {
  acknowledged: boolean;
  acknowledgedAt?: string;
  /** The recipient alias whose key acknowledged it; absent when it was a key the service does not know (a group member). */
  acknowledgedBy?: string;
  acknowledgedByDevice?: string;
  /** Pushover stopped repeating it (its expire passed, or 50 repeats were made). */
  expired: boolean;
  /** When Pushover stops repeating it (ISO time). */
  expiresAt?: string;
}

/** Pushover's receipts API: follow and stop emergency alarms; rejects with DeliveryError. */
export interface ReceiptApi {
  checkReceipt(receipt: string): Promise<ReceiptStatus>;
  cancelReceipt(receipt: string): Promise<void>;
  /** Stops every ringing emergency that carries `tag`, in one call (Pushover's cancel_by_tag). */
  cancelByTag?(tag: string): Promise<void>;
}

/** The sounds the provider's application may use, by name with a description. */
export interface SoundList {
  sounds: Record<string, string>;
  /** `pushover`: the app's own list, read from Pushover; `built-in`: Pushover's standard sounds (not read yet). */
  source: 'pushover' | 'built-in';
  fetchedAt: string | null;
}

/**
 * What a provider can do beyond sending, for providers that have it (Pushover does; a custom provider may not).
 * - `recipientAlias`: the alias a recipient's pushes go to, or null when it may not be sent to (refused with 400);
 * - `receipts`: the emergency alarm life cycle;
 * - `soundList`: the sound names to validate against;
 * - `start`/`stop`: background upkeep (key validation, sound list refresh, the rejection circuit's probe).
 */
export interface ProviderExtras {
  recipientAlias?(recipient: string): string | null;
  readonly receipts?: ReceiptApi;
  soundList?(): SoundList;
  start?(): void;
  stop?(): Promise<void>;
}
