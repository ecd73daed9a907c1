import { DeliveryError, type ProviderStatus, type PushMessage, type PushProvider, type PushReceipt } from '../../src/domain/push-provider.js';

type Outcome = PushReceipt | DeliveryError | Promise<PushReceipt>;

/** A PushProvider that records every message and answers with scripted outcomes (default: accepted). */
export class FakePushProvider implements PushProvider {
  readonly sent: PushMessage[] = [];
  /** When each send was called (ms since epoch), to check the spacing of retries. */
  readonly sentAt: number[] = [];
  private readonly script: Outcome[] = [];
  private fallback: Outcome | undefined;
  private lastSuccessAt: string | null = null;
  private lastError: ProviderStatus['lastError'] = null;
  quota: ProviderStatus['quota'] = null;

  constructor(readonly enabled = true) {}

  /** The next calls answer with these outcomes, in order. */
  willAnswer(...outcomes: Outcome[]): this {
    this.script.push(...outcomes);
    return this;
  }

  /** Every call after the script is used up answers with this outcome. */
  alwaysAnswer(outcome: Outcome): this {
    this.fallback = outcome;
    return this;
  }

  async send(message: PushMessage): Promise<PushReceipt> {
    this.sent.push(message);
    this.sentAt.push(Date.now());
    const outcome = this.script.shift() ?? this.fallback ?? { request: `req-${this.sent.length}` };
    const result = outcome instanceof DeliveryError ? outcome : await outcome;
    if (result instanceof DeliveryError) {
      this.lastError = { message: result.message, at: new Date().toISOString() };
      throw result;
    }
    this.lastSuccessAt = new Date().toISOString();
    return result;
  }

  status(): ProviderStatus {
    return { enabled: this.enabled, lastSuccessAt: this.lastSuccessAt, lastError: this.lastError, quota: this.quota };
  }
}

/** Pushover's answer to a 5xx or a network failure. */
export const retryable = (message = 'Pushover answered 503') => new DeliveryError(message, true, { status: 503 });

/** Pushover's answer to a bad request, with its `errors` text. */
export const permanent = (errors = ['user identifier is invalid']) => new DeliveryError('Pushover rejected the message', false, { status: 400, errors });

/** Pushover's answer when the monthly quota is spent. */
export const quotaSpent = () => new DeliveryError('Pushover answered 429', false, { status: 429, quotaExhausted: true, errors: ['quota exceeded'] });
