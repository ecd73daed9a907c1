import type { DeliveryError } from '../../domain/push-provider.js';

/** Why a PushoverService call failed: bad input (nothing sent), refused, quota spent, or Pushover unavailable. */
export type PushoverErrorCode = 'INVALID_INPUT' | 'REJECTED' | 'QUOTA_EXHAUSTED' | 'UNAVAILABLE';

/** The one error PushoverService rejects with; never contains the user key or API token. */
export class PushoverError extends Error {
  readonly code: PushoverErrorCode;
  /** HTTP status Pushover answered with; undefined when nothing was sent or no answer came. */
  readonly status: number | undefined;
  /** Pushover's `errors` texts, or the list of invalid inputs for INVALID_INPUT. */
  readonly errors: string[];
  /** True when the same call may succeed later (5xx, network error, timeout). */
  readonly retryable: boolean;

  constructor(
    code: PushoverErrorCode,
    message: string,
    options: { status?: number | undefined; errors?: string[]; retryable?: boolean; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PushoverError';
    this.code = code;
    this.status = options.status;
    this.errors = options.errors ?? [];
    this.retryable = options.retryable ?? false;
  }

  /** True when Pushover refused with 429: the application's monthly message quota is spent. */
  get quotaExhausted(): boolean {
    return this.code === 'QUOTA_EXHAUSTED';
  }

  /** Translates the provider's DeliveryError into the library's error. */
  static fromDelivery(error: DeliveryError): PushoverError {
    const { status, errors = [], quotaExhausted } = error.details;
    const code: PushoverErrorCode = quotaExhausted ? 'QUOTA_EXHAUSTED' : error.retryable ? 'UNAVAILABLE' : 'REJECTED';
    return new PushoverError(code, error.message, { status, errors, retryable: error.retryable, cause: error });
  }
}
