import { DeliveryError, type ProviderStatus, type PushProvider, type PushReceipt } from '../../domain/push-provider.js';

/** Stands in for Pushover when no user key / API token is configured; the domain records delivery "skipped". */
export class DisabledProvider implements PushProvider {
  readonly enabled = false;

  send(): Promise<PushReceipt> {
    return Promise.reject(new DeliveryError('Pushover is not configured: set PROVIDER_USER_KEY and PROVIDER_API_TOKEN', false));
  }

  status(): ProviderStatus {
    return { enabled: false, lastSuccessAt: null, lastError: null, quota: null };
  }
}
