import { PushoverError } from './adapters/pushover/pushover.error.js';
import { PushoverProvider } from './adapters/pushover/pushover.provider.js';
import type { PushoverMessage } from './adapters/pushover/to-pushover-fields.js';
import { SendNotificationSchema, type SendNotificationOptions } from './adapters/pushover/send-notification.schema.js';
import { DeliveryError, type ProviderStatus } from './domain/push-provider.js';
import type { Priority } from './domain/notification.js';

export { PushoverError, type PushoverErrorCode } from './adapters/pushover/pushover.error.js';
export type { SendNotificationOptions } from './adapters/pushover/send-notification.schema.js';

/** Credentials and endpoint for PushoverService; apiUrl defaults to https://api.pushover.net. */
export interface PushoverServiceOptions {
  userKey: string;
  apiToken: string;
  /** Any http(s)://host[:port][/prefix], for a proxy or a test server. */
  apiUrl?: string | undefined;
  /** Bound on one send, waiting for one of the 2 connections included. Default 10000. */
  timeoutMs?: number | undefined;
}

/** Sends Pushover notifications from any Node app: validated input, typed errors, no crash on provider errors. */
export class PushoverService {
  readonly #provider: PushoverProvider;

  constructor(options: PushoverServiceOptions) {
    const { userKey, apiToken, apiUrl, timeoutMs } = options ?? {};
    const missing = [!userKey?.trim() && 'userKey', !apiToken?.trim() && 'apiToken'].filter((x): x is string => !!x);
    if (missing.length > 0) {
      throw new PushoverError('INVALID_INPUT', `PushoverService needs ${missing.join(' and ')}`, { errors: missing.map((m) => `${m} is required`) });
    }
    try {
      this.#provider = new PushoverProvider({ userKey: userKey.trim(), apiToken: apiToken.trim(), apiUrl, timeoutMs });
    } catch (error) {
      // The URL itself is not echoed: a proxy URL may carry credentials.
      const reason = error instanceof Error ? error.message : String(error);
      throw new PushoverError('INVALID_INPUT', `Invalid PushoverService options: ${reason}`, { errors: [reason], cause: error });
    }
  }

  /**
   * Validates and sends one notification (priority defaults to 0).
   *
   * Resolves with a receipt string:
   * - priority 2 (emergency): Pushover's `receipt` id, to poll `GET /1/receipts/{receipt}.json` for acknowledgement
   *   or cancel the repeats (retry defaults to 60 s, expire to 3600 s); the request id should Pushover omit the receipt;
   * - priority −2…1: Pushover's `request` id (a UUID naming the accepted API request; quote it to Pushover support).
   *
   * Rejects with PushoverError: INVALID_INPUT before anything is sent; REJECTED for a 4xx (Pushover's `errors` kept);
   * QUOTA_EXHAUSTED for 429; UNAVAILABLE (retryable) for 5xx, network errors, timeouts and unreadable answers.
   */
  async sendNotification(options: SendNotificationOptions): Promise<string> {
    const parsed = SendNotificationSchema.safeParse(options);
    if (!parsed.success) {
      const errors = parsed.error.issues.map(describeIssue);
      throw new PushoverError('INVALID_INPUT', `Invalid notification: ${errors.join('; ')}`, { errors });
    }
    const sounds = this.getSounds();
    if (parsed.data.sound !== undefined && !sounds.includes(parsed.data.sound)) {
      const error = `sound must be one of ${sounds.join(', ')}`;
      throw new PushoverError('INVALID_INPUT', `Invalid notification: ${error}`, { errors: [error] });
    }
    const { title, priority = 0, ...rest } = parsed.data;
    // exactOptionalPropertyTypes: drop the keys zod reports as explicitly undefined.
    const optional = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as unknown as Omit<PushoverMessage, 'title' | 'priority'>;
    try {
      const receipt = await this.#provider.send({ ...optional, message: rest.message, title: title ?? '', priority: priority as Priority });
      return priority === 2 && receipt.receipt ? receipt.receipt : receipt.request;
    } catch (error) {
      if (error instanceof DeliveryError) throw PushoverError.fromDelivery(error);
      throw error;
    }
  }

  /**
   * The sound names sendNotification accepts: Pushover's 23 built-in ones ("pushover" is the default, "none" is
   * silent) until loadSounds() read the app's own list, custom sounds included.
   */
  getSounds(): string[] {
    return Object.keys(this.#provider.soundList().sounds);
  }

  /**
   * Reads the app's sound list from Pushover's sounds API (no message quota) and validates against it from then on,
   * refreshed daily. Resolves the names; rejects with PushoverError UNAVAILABLE when it cannot be read.
   */
  async loadSounds(): Promise<string[]> {
    const list = await this.#provider.refreshSounds();
    if (list.source !== 'pushover') {
      const reason = this.#provider.status().lastError?.message ?? 'no answer';
      throw new PushoverError('UNAVAILABLE', `Could not read the app's sound list: ${reason}`, { errors: [reason], retryable: true });
    }
    return Object.keys(list.sounds);
  }

  /** Last success, last error and the quota Pushover reported; never contains a secret. */
  status(): ProviderStatus {
    return this.#provider.status();
  }
}

function describeIssue(issue: { path: PropertyKey[]; message: string }): string {
  const path = issue.path.map(String).join('.');
  return path === '' || issue.message.startsWith(path) ? issue.message : `${path}: ${issue.message}`;
}
