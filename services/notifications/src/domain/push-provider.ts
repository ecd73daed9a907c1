import type { NotificationRecord } from './notification.js';

/** One message as the provider should deliver it: the deliverable fields of a record, plus the image bytes. */
export type PushMessage = Pick<
  NotificationRecord,
  'title' | 'message' | 'priority' | 'sound' | 'url' | 'urlTitle' | 'html' | 'monospace' | 'ttl' | 'device'
> & {
  /** When the notification was created (ISO time): Pushover shows it, so a late delivery says when it happened. */
  createdAt?: string;
  /** Images only; Pushover shows them inline. */
  attachment?: { filename: string; contentType: string; data: Buffer };
};

/** What the provider returns for an accepted message. */
export interface PushReceipt {
  /** Provider's request id. */
  request: string;
  /** Emergency priority only: the receipt to poll acknowledgement with. */
  receipt?: string;
}

/** Why a send failed, and whether trying again can help. */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    /** `waitUntil`: when the quota resets (ISO time): the delivery waits for it instead of failing. */
    readonly details: { status?: number; errors?: string[]; quotaExhausted?: boolean; waitUntil?: string } = {},
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
}

/** Sends push messages (Pushover in production); rejects with DeliveryError. */
export interface PushProvider {
  readonly enabled: boolean;
  send(message: PushMessage): Promise<PushReceipt>;
  status(): ProviderStatus;
}
