import { randomUUID } from 'node:crypto';
import { AppError, isoNow, systemClock, TimeoutError, withTimeout, type Clock } from '@homeops/common';
import pg from 'pg';
import type { ListQuery, NotificationPage, NotificationRepository, RecipientSummary, StorageStats } from '../../../domain/notification-repository.js';
import { hasWorkLeft, type Delivery, type NotificationPatch, type NotificationRecord, type PendingDelivery } from '../../../domain/notification.js';
import { describeRecordProblem } from '../record-shape.js';
import { describeDatabase, isDuplicateKey, storageUnavailable } from './pg-errors.js';
import { GroupWriter } from './group-writer.js';
import { LOCK_RETENTION, migrate } from './pg-migrations.js';

/** Connection and claim settings of the PostgreSQL history. */
export interface PgSettings {
  url: string;
  /** Connections this instance opens at most. */
  poolMax: number;
  /** Waiting for a connection (new or from a busy pool) longer than this fails the request with 503. */
  connectTimeoutMs: number;
  /** A statement running longer is cancelled by the server. */
  queryTimeoutMs: number;
  /** How long a claimed delivery stays this instance's: past it, another instance takes it over. */
  leaseMs: number;
  /** This instance's name in claims; default a random one per start. */
  instanceId?: string;
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
  /** Times the claims' leases and dates the last write (default the system clock). */
  clock?: Clock;
}

/** One row of a multi-row INSERT, as the statement reads it from JSON. */
interface InsertRow {
  id: string;
  recipient: string;
  record: NotificationRecord;
  lease_owner: string | null;
  lease_ms: number | null;
}

const STATS_TIMEOUT_MS = 2_000;
/** Multi-row INSERTs being written at once, and rows in one at most. */
const INSERTS_IN_FLIGHT = 2;
const INSERT_BATCH = 200;
/** Pending ones a sweep takes at a time. */
const PENDING_BATCH = 500;

/**
 * The notification history in PostgreSQL, shared by every instance pointed at the same database. Each call is one
 * statement (or one short transaction); a delivery is claimed with its attempt count as the condition, so two
 * instances never send the same attempt, and a claim carries a lease that lapses when its instance dies.
 */
export class PgNotificationRepository implements NotificationRepository {
  readonly shared = true;
  readonly instanceId: string;
  readonly pool: pg.Pool;
  private lastWriteAt: string | null = null;
  private lastError: string | null = null;
  private records = 0;
  private readonly clock: Clock;
  /** Creates under load share one multi-row INSERT (see GroupWriter). */
  private readonly inserts = new GroupWriter<InsertRow>((rows) => this.insertRows(rows), {
    maxInFlight: INSERTS_IN_FLIGHT,
    maxBatch: INSERT_BATCH,
    retryAlone: isDuplicateKey,
  });

  constructor(private readonly settings: PgSettings) {
    this.instanceId = settings.instanceId ?? `notifications-${randomUUID().slice(0, 8)}`;
    this.clock = settings.clock ?? systemClock;
    this.pool = new pg.Pool({
      connectionString: settings.url,
      max: settings.poolMax,
      connectionTimeoutMillis: settings.connectTimeoutMs,
      idleTimeoutMillis: 30_000,
      statement_timeout: settings.queryTimeoutMs,
      query_timeout: settings.queryTimeoutMs + 1_000,
      application_name: this.instanceId,
    });
    // An idle connection dropped by a server restart: the pool replaces it; never a crash of the process.
    this.pool.on('error', (err) => this.settings.log?.('warn', `an idle database connection failed: ${err.message}`));
  }

  async open(): Promise<void> {
    const client = await this.pool.connect().catch((err: unknown) => {
      throw storageUnavailable(err);
    });
    try {
      const applied = await migrate(client);
      if (applied.length > 0) this.settings.log?.('info', `database schema migrated to version ${applied.at(-1)}`);
    } finally {
      client.release();
    }
    await this.stats();
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  async insert(record: NotificationRecord): Promise<void> {
    const problem = describeRecordProblem(record);
    if (problem !== undefined) throw new AppError('INTERNAL', `Refusing to store notification ${record.id}: ${problem}`);
    const lease = this.leaseOf(record.delivery);
    try {
      await this.inserts.add({ id: record.id, recipient: record.recipient, record, lease_owner: lease.owner, lease_ms: lease.afterMs });
    } catch (err) {
      if (isDuplicateKey(err)) throw new AppError('NOTIFICATION_EXISTS', `Notification id ${record.id} already exists`);
      throw err;
    }
  }

  async update(id: string, patch: NotificationPatch): Promise<NotificationRecord | undefined> {
    const values: unknown[] = [id, JSON.stringify(patch)];
    let leaseSql = '';
    if (patch.delivery) {
      const lease = this.leaseOf(patch.delivery);
      values.push(lease.owner, lease.afterMs);
      leaseSql = ", lease_owner = $3, lease_until = now() + $4 * interval '1 millisecond'";
    }
    const rows = await this.write<{ record: NotificationRecord }>(
      `UPDATE notifications SET record = record || $2::jsonb${leaseSql} WHERE id = $1 RETURNING record`,
      values,
    );
    return rows[0]?.record;
  }

  async claimAttempt(id: string, delivery: PendingDelivery): Promise<NotificationRecord | undefined> {
    const rows = await this.write<{ record: NotificationRecord }>(
      `UPDATE notifications SET record = jsonb_set(record, '{delivery}', $2::jsonb), lease_owner = $4, lease_until = now() + $5 * interval '1 millisecond'
       WHERE id = $1 AND status = 'pending' AND attempts = $3 AND (lease_until IS NULL OR lease_until < now() OR lease_owner = $4)
       RETURNING record`,
      [id, JSON.stringify(delivery), delivery.attempts - 1, this.instanceId, this.settings.leaseMs],
    );
    return rows[0]?.record;
  }

  async markAllRead(recipient: string, readAt: string): Promise<number> {
    const rows = await this.write<{ n: string }>(
      `WITH changed AS (UPDATE notifications SET record = record || jsonb_build_object('read', true, 'readAt', $2::text) WHERE recipient = $1 AND NOT read RETURNING 1)
       SELECT count(*) AS n FROM changed`,
      [recipient, readAt],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async remove(id: string): Promise<NotificationRecord | undefined> {
    const rows = await this.write<{ record: NotificationRecord }>('DELETE FROM notifications WHERE id = $1 RETURNING record', [id]);
    return rows[0]?.record;
  }

  async get(id: string): Promise<NotificationRecord | undefined> {
    const rows = await this.read<{ record: NotificationRecord }>('SELECT record FROM notifications WHERE id = $1', [id]);
    return rows[0]?.record;
  }

  async list(recipient: string, query: ListQuery): Promise<NotificationPage> {
    const values: unknown[] = [recipient, query.limit + 1];
    let after = '';
    if (query.before !== undefined) {
      const cursor = await this.read<{ created_at: string; seq: string }>('SELECT created_at, seq FROM notifications WHERE id = $1', [query.before]);
      if (!cursor[0]) throw new AppError('NOTIFICATION_NOT_FOUND', `The cursor ${query.before} is not a stored notification`);
      values.push(cursor[0].created_at, cursor[0].seq);
      after = ' AND (created_at, seq) < ($3, $4)';
    }
    const unread = query.unreadOnly ? ' AND NOT read' : '';
    // One round trip: the page and the counts row.
    const rows = await this.read<{ items: NotificationRecord[] | null; total: string | null; unread: string | null }>(
      `SELECT (SELECT json_agg(p.record ORDER BY p.created_at DESC, p.seq DESC) FROM (SELECT record, created_at, seq FROM notifications WHERE recipient = $1${unread}${after}
                ORDER BY created_at DESC, seq DESC LIMIT $2) AS p) AS items,
              c.total, c.unread
       FROM (SELECT 1) AS one LEFT JOIN recipient_counts AS c ON c.recipient = $1`,
      values,
    );
    const items = rows[0]?.items ?? [];
    const more = items.length > query.limit;
    if (more) items.length = query.limit;
    return { items, total: Number(rows[0]?.total ?? 0), unread: Number(rows[0]?.unread ?? 0), nextCursor: more ? items.at(-1)!.id : null };
  }

  async recipients(): Promise<RecipientSummary[]> {
    const rows = await this.read<{ recipient: string; total: string; unread: string }>(
      'SELECT recipient, total, unread FROM recipient_counts WHERE total > 0 ORDER BY recipient',
      [],
    );
    return rows.map((r) => ({ recipient: r.recipient, total: Number(r.total), unread: Number(r.unread) }));
  }

  /** Takes the pending deliveries nobody else holds (SKIP LOCKED: sweeping instances never wait for each other). */
  async pending(): Promise<NotificationRecord[]> {
    const rows = await this.write<{ record: NotificationRecord }>(
      // A retry this instance planned keeps its longer lease; a lapsed one (its instance gone) starts a new one.
      `UPDATE notifications SET lease_owner = $1, lease_until = GREATEST(CASE WHEN lease_owner = $1 THEN lease_until END, now() + $2 * interval '1 millisecond')
       WHERE id IN (
         SELECT id FROM notifications
         WHERE (status = 'pending' OR (status <> 'pending' AND record->'delivery'->'channels' @> '[{"status": "pending"}]'))
           AND (lease_until IS NULL OR lease_until < now() OR lease_owner = $1)
         ORDER BY lease_until NULLS FIRST LIMIT ${PENDING_BATCH} FOR UPDATE SKIP LOCKED
       ) RETURNING record`,
      [this.instanceId, this.settings.leaseMs],
    );
    return rows.map((r) => r.record);
  }

  async ringing(): Promise<NotificationRecord[]> {
    const rows = await this.read<{ record: NotificationRecord }>('SELECT record FROM notifications WHERE ringing', []);
    return rows.map((r) => r.record);
  }

  /** One instance prunes at a time: the others find the advisory lock taken and prune nothing. */
  async prune(rule: { olderThan?: Date; maxPerRecipient?: number }): Promise<NotificationRecord[]> {
    return this.transaction(async (client) => {
      const { rows: lock } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [LOCK_RETENTION]);
      if (!lock[0]?.ok) return [];
      const { rows } = await client.query<{ record: NotificationRecord }>(
        `DELETE FROM notifications WHERE id IN (
           SELECT id FROM notifications WHERE $1::text IS NOT NULL AND created_at < $1::text
           UNION
           SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY recipient ORDER BY created_at DESC, seq DESC) AS n FROM notifications) AS ranked
           WHERE $2::bigint IS NOT NULL AND n > $2::bigint
         ) RETURNING record`,
        [rule.olderThan?.toISOString() ?? null, rule.maxPerRecipient ?? null],
      );
      return rows.map((r) => r.record);
    });
  }

  async stats(): Promise<StorageStats> {
    let bytes = 0;
    try {
      // /health answers in time even when the database does not.
      const rows = await withTimeout(
        this.clock,
        this.read<{ records: string; bytes: string }>(
          "SELECT (SELECT coalesce(sum(total), 0) FROM recipient_counts) AS records, pg_total_relation_size('notifications') AS bytes",
          [],
        ),
        STATS_TIMEOUT_MS,
        'The database status query',
      );
      this.records = Number(rows[0]?.records ?? 0);
      bytes = Number(rows[0]?.bytes ?? 0);
    } catch (err) {
      // Reported below through writable and lastError.
      if (err instanceof TimeoutError) this.lastError = err.message;
    }
    return {
      engine: 'postgres',
      path: describeDatabase(this.settings.url),
      writable: this.lastError === null,
      records: this.records,
      fileBytes: bytes,
      lastWriteAt: this.lastWriteAt,
      lastError: this.lastError,
    };
  }

  private async insertRows(rows: InsertRow[]): Promise<void> {
    // The rows keep their order (seq follows it); the counts trigger runs once for the statement.
    await this.write(
      `INSERT INTO notifications (id, recipient, record, lease_owner, lease_until)
       SELECT r.id, r.recipient, r.record, r.lease_owner, now() + r.lease_ms * interval '1 millisecond'
       FROM jsonb_to_recordset($1::jsonb) AS r(id text, recipient text, record jsonb, lease_owner text, lease_ms double precision)`,
      [JSON.stringify(rows)],
    );
  }

  /** Where a delivery's claim ends: a pending one stays this instance's until its planned attempt and a lease beyond. */
  private leaseOf(delivery: Delivery): { owner: string | null; afterMs: number | null } {
    if (!hasWorkLeft(delivery)) return { owner: null, afterMs: null };
    const now = this.clock.now();
    const next = delivery.status !== 'pending' || delivery.nextAttemptAt === undefined ? now : Date.parse(delivery.nextAttemptAt);
    return { owner: this.instanceId, afterMs: Math.max(0, next - now) + this.settings.leaseMs };
  }

  private async read<R extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<R[]> {
    try {
      const result = await this.pool.query<R>(sql, values);
      this.lastError = null;
      return result.rows;
    } catch (err) {
      throw this.failed(err);
    }
  }

  private async write<R extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<R[]> {
    const rows = await this.read<R>(sql, values);
    this.lastWriteAt = isoNow(this.clock);
    return rows;
  }

  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw this.failed(err);
    }
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      this.lastError = null;
      this.lastWriteAt = isoNow(this.clock);
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw this.failed(err);
    } finally {
      client.release();
    }
  }

  private failed(err: unknown): Error {
    if (isDuplicateKey(err) || err instanceof AppError) return err as Error;
    const error = storageUnavailable(err);
    this.lastError = error.message;
    return error;
  }
}
