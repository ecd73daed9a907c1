import { EventStreamHub, type Clock } from '@homeops/common';
import { afterEach } from 'vitest';
import { PushoverProvider, type PushoverProviderOptions } from '../../src/adapters/pushover/pushover.provider.js';
import { buildDomain, createApp, type AppConfig } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import type { NotificationEvent } from '../../src/domain/notification-events.js';
import type { NotificationRepository } from '../../src/domain/notification-repository.js';
import type { PlanStore } from '../../src/domain/plans/plan.js';
import { InMemoryAttachmentStore } from '../fakes/in-memory-attachment.store.js';
import { openRealStorage, silentLogger } from '../support/test-app.js';
import { API_TOKEN } from './pushover-test-kit.js';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/**
 * The app with the real PushoverProvider against a fake Pushover at `url`, started as the service starts it
 * (key validation, sound list, delivery resume, emergency watch); stopped after the test. A `clock` times the domain
 * (delivery retries, emergency polls); the provider's own deadlines stay on the system clock.
 */
export async function startHouseholdApp(
  url: string,
  provider: Omit<PushoverProviderOptions, 'apiToken' | 'apiUrl'>,
  options: { config?: Partial<AppConfig>; repository?: NotificationRepository; clock?: Clock; plans?: PlanStore } = {},
) {
  const config: AppConfig = {
    ...parseConfig({ DELIVERY_RETRY_MIN_MS: '20', DELIVERY_RETRY_MAX_MS: '80', PROVIDER_TIMEOUT_MS: '1000' }),
    EMERGENCY_POLL_SECONDS: 0.05,
    ...options.config,
  };
  const pushover = new PushoverProvider({ apiToken: API_TOKEN, apiUrl: url, timeoutMs: config.PROVIDER_TIMEOUT_MS, ...provider });
  const repository = options.repository ?? (await openRealStorage()).repository;
  const base = {
    logger: silentLogger,
    repository,
    attachments: new InMemoryAttachmentStore(),
    provider: pushover,
    hub: new EventStreamHub({ heartbeatMs: 60_000 }),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.plans ? { plans: options.plans } : {}),
  };
  const domain = buildDomain(base, config);
  const app = createApp(
    {
      ...base,
      events: domain.ctx.events,
      delivery: domain.delivery,
      planner: domain.planner,
      ...(domain.emergencies ? { emergencies: domain.emergencies } : {}),
    },
    config,
  );
  const events: NotificationEvent[] = [];
  domain.ctx.events.subscribeAll((event) => events.push(event));
  pushover.start();
  domain.delivery.resume();
  domain.emergencies?.start();
  await domain.planner.start();
  const stop = async () => {
    await domain.planner.stop();
    await domain.emergencies?.stop();
    await domain.delivery.stop();
    await pushover.stop();
  };
  stops.push(stop);
  return { app, repository, provider: pushover, events, stop, ...domain };
}
