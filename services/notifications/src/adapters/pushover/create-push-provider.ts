import type { PushProvider } from '../../domain/push-provider.js';
import { DisabledProvider } from './disabled.provider.js';
import { PushoverProvider, type PushoverProviderOptions } from './pushover.provider.js';

/** Keys as read from config; either may be missing. */
export type PushProviderConfig = Omit<PushoverProviderOptions, 'userKey' | 'apiToken'> & {
  userKey?: string | undefined;
  apiToken?: string | undefined;
};

/** A PushoverProvider when the token and a user key (or a recipient map) are set (non-blank), otherwise a DisabledProvider. */
export function createPushProvider(config: PushProviderConfig): PushProvider {
  const userKey = config.userKey?.trim() || undefined;
  const apiToken = config.apiToken?.trim();
  if (!apiToken || (!userKey && !config.recipients?.recipients.size)) return new DisabledProvider();
  return new PushoverProvider({ ...config, userKey, apiToken });
}
