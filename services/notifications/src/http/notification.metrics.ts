import type { AppMetrics, Clock, EventStreamHub, KnownLabels } from '@homeops/common';
import type { DeliveryWorker } from '../domain/delivery.worker.js';
import type { DeliveryStatus } from '../domain/notification.js';
import type { NotificationEvents } from '../domain/notification-events.js';
import type { NotificationRepository, StorageStats } from '../domain/notification-repository.js';
import type { PushProvider } from '../domain/push-provider.js';

/** What the notifications metrics read: the objects /health reads, and the domain's events. */
export interface NotificationMetricsDeps {
  repository: NotificationRepository;
  provider: PushProvider;
  delivery: DeliveryWorker;
  events: NotificationEvents;
  hub: EventStreamHub;
  clock: Clock;
  /** Emergencies whose receipt is being followed. */
  emergencies: () => number;
}

/** A connection pool as `pg.Pool` counts it. */
interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** The statuses a delivery is counted under (final ones, and `skipped`); each starts at 0. */
export const DELIVERY_LABELS = { status: ['sent', 'failed', 'expired', 'unknown', 'cancelled', 'skipped'] } as const satisfies KnownLabels<'status'>;
/** Outcomes of an attempt just made (an expiry or a resend is none); each starts with empty buckets. */
export const ATTEMPT_LABELS = { outcome: ['sent', 'failed', 'unknown', 'pending'] } as const satisfies KnownLabels<'outcome'>;

/** Each channel's final results: Pushover's deliveries, and each send to a fallback target (ntfy, mail). */
export const CHANNEL_LABELS = {
  channel: ['pushover', 'ntfy', 'email'],
  status: ['sent', 'failed', 'expired', 'unknown', 'cancelled'],
} as const satisfies KnownLabels<'channel' | 'status'>;

const FINAL: ReadonlySet<DeliveryStatus> = new Set(['sent', 'failed', 'expired', 'unknown', 'cancelled']);
const ATTEMPTED: ReadonlySet<DeliveryStatus> = new Set(ATTEMPT_LABELS.outcome);

/** The PostgreSQL repository's pool, when the history is there (found by shape: the domain names no driver). */
function poolOf(repository: NotificationRepository): PoolCounts | undefined {
  const pool = (repository as { pool?: Partial<PoolCounts> }).pool;
  return typeof pool?.totalCount === 'number' ? (pool as PoolCounts) : undefined;
}

/** Seconds since the epoch of an ISO time; NaN when absent. */
const epochSeconds = (iso: string | null | undefined) => (iso ? Date.parse(iso) / 1000 : NaN);

/**
 * Registers the notifications metrics on `metrics`. Counters follow this instance's own domain events (never those
 * another instance relayed, which that instance counts); gauges read the provider's and the history's status when
 * scraped. No label names a recipient.
 */
export function registerNotificationMetrics(metrics: AppMetrics, deps: NotificationMetricsDeps): void {
  const { repository, provider, delivery, events, hub, clock } = deps;
  const created = metrics.counter({ name: 'homeops_notifications_created_total', help: 'Notifications created on this instance' });
  const deliveries = metrics.counter(
    {
      name: 'homeops_deliveries_total',
      help: 'Deliveries that reached a final status (sent, failed, expired, unknown, cancelled; skipped while delivery is off)',
      labelNames: ['status'],
    },
    DELIVERY_LABELS,
  );
  const attempts = metrics.histogram(
    {
      name: 'homeops_delivery_attempt_seconds',
      help: 'One delivery attempt, from its start to its outcome stored, by outcome (pending: it failed and will be retried)',
      labelNames: ['outcome'],
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    },
    ATTEMPT_LABELS,
  );
  const channels = metrics.counter(
    {
      name: 'homeops_channel_deliveries_total',
      help: 'Final results by channel: each Pushover delivery, and each send to a fallback target (failed: out of attempts)',
      labelNames: ['channel', 'status'],
    },
    CHANNEL_LABELS,
  );
  events.subscribeAll((event, _id, remote) => {
    if (remote) return;
    if (event.type === 'delivery' && event.channel) {
      const { channel, status } = event.channel;
      if (status === 'sent' || status === 'failed') channels.inc({ channel, status });
    } else if (event.type === 'created') {
      created.inc();
      if (event.notification.delivery.status === 'skipped') deliveries.inc({ status: 'skipped' });
    } else if (event.type === 'delivery') {
      const { status, attempts: made } = event.notification.delivery;
      if (FINAL.has(status)) {
        deliveries.inc({ status });
        if (status !== 'skipped' && status !== 'pending') channels.inc({ channel: 'pushover', status });
      }
      const startedAt = 'lastAttemptAt' in event.notification.delivery ? event.notification.delivery.lastAttemptAt : undefined;
      if (ATTEMPTED.has(status) && made > 0 && startedAt !== undefined) {
        attempts.observe({ outcome: status }, Math.max(0, clock.now() - Date.parse(startedAt)) / 1000);
      }
    }
  });
  metrics.gauge({
    name: 'homeops_pushover_quota_remaining',
    help: 'Messages left this month as Pushover last told (X-Limit-App-Remaining); NaN until it told',
    collect() {
      this.set(provider.status().quota?.remaining ?? NaN);
    },
  });
  metrics.gauge({
    name: 'homeops_pushover_quota_limit',
    help: "The app's monthly message limit as Pushover last told (X-Limit-App-Limit); NaN until it told",
    collect() {
      this.set(provider.status().quota?.limit ?? NaN);
    },
  });
  metrics.gauge({
    name: 'homeops_pushover_quota_reset_timestamp_seconds',
    help: 'When the monthly quota starts again (X-Limit-App-Reset), seconds since the epoch; NaN until Pushover told',
    collect() {
      this.set(epochSeconds(provider.status().quota?.resetAt));
    },
  });
  metrics.gauge({
    name: 'homeops_pushover_circuit_open',
    help: '1 while sending is paused after repeated rejections (PROVIDER_MAX_REJECTIONS), else 0',
    collect() {
      this.set(provider.status().circuit?.open ? 1 : 0);
    },
  });
  metrics.gauge({
    name: 'homeops_delivery_enabled',
    help: '1 when a push provider is configured, 0 while delivery is off',
    collect() {
      this.set(provider.enabled ? 1 : 0);
    },
  });
  metrics.gauge({
    name: 'homeops_delivery_retries_scheduled',
    help: 'Deliveries waiting for a retry on this instance',
    collect() {
      this.set(delivery.scheduled);
    },
  });
  metrics.gauge({
    name: 'homeops_emergencies_ringing',
    help: 'Emergency (priority 2) notifications whose receipt is being followed',
    collect() {
      this.set(deps.emergencies());
    },
  });
  metrics.gauge({
    name: 'homeops_event_streams',
    help: 'Open notification streams',
    collect() {
      this.set(hub.size);
    },
  });
  // Both history gauges are collected in the same turn of a scrape: one stats() call serves them, and a failing
  // store leaves them out (its error is in /health).
  let pending: Promise<StorageStats | undefined> | undefined;
  const readStats = () =>
    (pending ??= repository
      .stats()
      .catch(() => undefined)
      .finally(() => (pending = undefined)));
  metrics.gauge({
    name: 'homeops_history_notifications',
    help: 'Notifications in the history',
    async collect() {
      const stats = await readStats();
      if (stats) this.set(stats.records);
    },
  });
  metrics.gauge({
    name: 'homeops_history_bytes',
    help: 'Size of the history: the YAML snapshot and its journals, or the PostgreSQL table',
    async collect() {
      const stats = await readStats();
      if (stats) this.set(stats.fileBytes);
    },
  });
  const pool = poolOf(repository);
  if (pool) {
    metrics.gauge({
      name: 'homeops_pg_pool_connections',
      help: 'PostgreSQL connections of this instance: total open, idle, and requests waiting for one',
      labelNames: ['state'],
      collect() {
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
  }
}
