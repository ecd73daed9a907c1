import { afterTest } from '@homeops/test-kit';
import type { Clock } from '@homeops/common';
import { PushoverProvider, type PushoverProviderOptions } from '../../src/adapters/pushover/pushover.provider.js';
import { parseConfig, type Config } from '../../src/config.js';
import type { NotificationEvent } from '../../src/domain/notification-events.js';
import type { NotificationRepository } from '../../src/domain/notification-repository.js';
import type { PlanStore } from '../../src/domain/plans/plan.js';
import { InMemoryAttachmentStore } from '../fakes/in-memory-attachment.store.js';
import { composeTestService, lent, openRealStorage } from '../support/test-app.js';
import { API_TOKEN } from './pushover-test-kit.js';

/**
 * The app with the real PushoverProvider against a fake Pushover at `url`, composed and started as the service starts
 * it (key validation, sound list, delivery resume, emergency watch), without listening; stopped after the test. A `clock` times the domain
 * (delivery retries, emergency polls); the provider's own deadlines stay on the system clock.
 */
export async function startHouseholdApp(
  url: string,
  provider: Omit<PushoverProviderOptions, 'apiToken' | 'apiUrl'>,
  options: { config?: Partial<Config>; repository?: NotificationRepository; clock?: Clock; plans?: PlanStore } = {},
) {
  const config: Config = {
    ...parseConfig({ DELIVERY_RETRY_MIN_MS: '20', DELIVERY_RETRY_MAX_MS: '80', PROVIDER_TIMEOUT_MS: '1000' }),
    EMERGENCY_POLL_SECONDS: 0.05,
    ...options.config,
  };
  const pushover = new PushoverProvider({ apiToken: API_TOKEN, apiUrl: url, timeoutMs: config.PROVIDER_TIMEOUT_MS, ...provider });
  // A history the test passes stays the test's: it may outlive this app (a restart on the same store).
  const repository = options.repository ?? (await openRealStorage()).repository;
  const service = await composeTestService(config, {
    repository: lent(repository),
    attachments: new InMemoryAttachmentStore(),
    provider: pushover,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.plans ? { plans: options.plans } : {}),
  });
  const { app, domain } = service;
  const events: NotificationEvent[] = [];
  domain.ctx.events.subscribeAll((event) => events.push(event));
  await service.start();
  const stop = () => service.close();
  afterTest(stop);
  return { ...domain, app, repository, provider: pushover, events, stop };
}
