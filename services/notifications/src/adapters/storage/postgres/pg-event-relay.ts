import { systemClock, type Clock, type Timer } from '@homeops/common';
import pg from 'pg';
import type { EventRelay, NotificationEvent } from '../../../domain/notification-events.js';
import type { NotificationRepository } from '../../../domain/notification-repository.js';
import { GroupWriter } from './group-writer.js';

const CHANNEL = 'notifications_events';
const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 30_000;

/** What crosses the channel: names only, never a record (NOTIFY payloads are small); the receiver reads the row. */
interface Wire {
  o: string;
  t: NotificationEvent['type'];
  r: string;
  i?: string;
  u?: number;
  a?: string;
}

/**
 * Events between instances over PostgreSQL's LISTEN/NOTIFY. One dedicated connection listens and reconnects by itself
 * with backoff when the server restarts; events missed while it was away are not replayed (streams reconnect and reload).
 */
export class PgEventRelay implements EventRelay {
  private client: pg.Client | undefined;
  private receive: ((event: NotificationEvent) => void) | undefined;
  private chain: Promise<void> = Promise.resolve();
  private retryMs = RECONNECT_MIN_MS;
  private retryTimer: Timer | undefined;
  private stopped = false;
  /**
   * Events under load leave in one NOTIFY statement, one batch at a time so they keep their order. PostgreSQL folds
   * identical payloads of one transaction into one: harmless here, since the receiver reads the row's latest state.
   */
  private readonly outgoing = new GroupWriter<string>(
    async (payloads) => {
      await this.pool.query('SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p', [CHANNEL, payloads]);
    },
    { maxInFlight: 1, maxBatch: 500 },
  );

  constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly repository: Pick<NotificationRepository, 'get'>,
    private readonly instanceId: string,
    private readonly log: (level: 'info' | 'warn', message: string) => void = () => undefined,
    private readonly clock: Clock = systemClock,
  ) {}

  send(event: NotificationEvent): void {
    const wire: Wire = { o: this.instanceId, t: event.type, r: event.recipient };
    if (event.type === 'deleted') wire.i = event.id;
    else if (event.type === 'read-all') Object.assign(wire, { u: event.updated, a: event.readAt });
    else wire.i = event.notification.id;
    this.outgoing.add(JSON.stringify(wire)).catch((err: Error) => this.log('warn', `an event could not be shared with the other instances: ${err.message}`));
  }

  async start(receive: (event: NotificationEvent) => void): Promise<void> {
    this.receive = receive;
    await this.listen();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.retryTimer?.cancel();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
    await this.chain;
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: `${this.instanceId}-events` });
    client.on('error', (err) => this.lost(client, err.message));
    client.on('end', () => this.lost(client, 'connection closed'));
    client.on('notification', (message) => {
      if (message.channel !== CHANNEL || message.payload === undefined) return;
      this.chain = this.chain.then(() => this.deliver(message.payload!));
    });
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      this.retryMs = RECONNECT_MIN_MS;
    } catch (err) {
      this.lost(client, (err as Error).message);
    }
  }

  private lost(client: pg.Client, why: string): void {
    if (this.stopped || this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    this.log('warn', `listening for other instances' events stopped (${why}); reconnecting in ${this.retryMs} ms`);
    this.retryTimer = this.clock.setTimer(() => void this.listen(), this.retryMs);
    this.retryMs = Math.min(RECONNECT_MAX_MS, this.retryMs * 2);
  }

  private async deliver(payload: string): Promise<void> {
    let wire: Wire;
    try {
      wire = JSON.parse(payload) as Wire;
    } catch {
      return;
    }
    if (wire.o === this.instanceId || !this.receive) return;
    if (wire.t === 'deleted') return this.receive({ type: 'deleted', recipient: wire.r, id: wire.i ?? '' });
    if (wire.t === 'read-all') return this.receive({ type: 'read-all', recipient: wire.r, updated: wire.u ?? 0, readAt: wire.a ?? '' });
    const notification = await this.repository.get(wire.i ?? '').catch(() => undefined);
    // Gone already (deleted right after): its `deleted` event follows.
    if (notification) this.receive({ type: wire.t, recipient: wire.r, notification });
  }
}
