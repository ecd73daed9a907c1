import type pg from 'pg';

/**
 * The schema, one step per version; a step is never edited once released, a change is a new step.
 * Columns the queries filter or sort on are generated from the stored record, so one write keeps them true.
 * Counts per recipient live in their own table, kept by statement triggers: totals without a scan.
 */
export const MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  {
    version: 1,
    name: 'notifications and counts per recipient',
    sql: `
CREATE TABLE notifications (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  record jsonb NOT NULL,
  recipient text NOT NULL,
  created_at text COLLATE "C" GENERATED ALWAYS AS (record->>'createdAt') STORED,
  read boolean GENERATED ALWAYS AS ((record->>'read')::boolean) STORED,
  status text GENERATED ALWAYS AS (record->'delivery'->>'status') STORED,
  attempts integer GENERATED ALWAYS AS ((record->'delivery'->>'attempts')::integer) STORED,
  ringing boolean GENERATED ALWAYS AS (
    record->>'priority' = '2' AND record->'delivery'->>'status' = 'sent' AND record->'delivery' ? 'receipt'
    AND record ? 'emergency' AND NOT (record->'emergency' ?| array['acknowledgedAt', 'expiredAt', 'cancelledAt'])
  ) STORED,
  lease_owner text,
  lease_until timestamptz
);
CREATE INDEX notifications_page ON notifications (recipient, created_at, seq);
CREATE INDEX notifications_unread_page ON notifications (recipient, created_at, seq) WHERE NOT read;
CREATE INDEX notifications_pending ON notifications (lease_until NULLS FIRST) WHERE status = 'pending';
CREATE INDEX notifications_ringing ON notifications (id) WHERE ringing;
CREATE INDEX notifications_age ON notifications (created_at);

CREATE TABLE recipient_counts (
  recipient text COLLATE "C" PRIMARY KEY,
  total bigint NOT NULL,
  unread bigint NOT NULL
);

CREATE FUNCTION notifications_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO recipient_counts AS c (recipient, total, unread)
    SELECT recipient, count(*), count(*) FILTER (WHERE NOT read) FROM new_rows GROUP BY recipient ORDER BY recipient
  ON CONFLICT (recipient) DO UPDATE SET total = c.total + EXCLUDED.total, unread = c.unread + EXCLUDED.unread;
  RETURN NULL;
END $$;
CREATE FUNCTION notifications_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE recipient_counts AS c SET total = c.total - d.total, unread = c.unread - d.unread
    FROM (SELECT recipient, count(*) AS total, count(*) FILTER (WHERE NOT read) AS unread FROM old_rows GROUP BY recipient) AS d
    WHERE c.recipient = d.recipient;
  DELETE FROM recipient_counts WHERE total <= 0 AND recipient IN (SELECT recipient FROM old_rows);
  RETURN NULL;
END $$;
CREATE FUNCTION notifications_count_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Only a change of read state touches the counts row: delivery updates take no lock on it.
  UPDATE recipient_counts AS c SET unread = c.unread + d.delta
    FROM (
      SELECT recipient, sum(delta) AS delta FROM (
        SELECT recipient, CASE WHEN read THEN 0 ELSE 1 END AS delta FROM new_rows
        UNION ALL SELECT recipient, CASE WHEN read THEN 0 ELSE -1 END FROM old_rows
      ) AS x GROUP BY recipient HAVING sum(delta) <> 0
    ) AS d
    WHERE c.recipient = d.recipient;
  RETURN NULL;
END $$;
CREATE TRIGGER notifications_counted_insert AFTER INSERT ON notifications
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notifications_count_inserted();
CREATE TRIGGER notifications_counted_delete AFTER DELETE ON notifications
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION notifications_count_deleted();
CREATE TRIGGER notifications_counted_update AFTER UPDATE ON notifications
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notifications_count_updated();
`,
  },
  {
    version: 2,
    name: 'scheduled sends and heartbeats',
    // One row per plan; its version is what instances claim (UPDATE … WHERE version = the one they read).
    sql: `
CREATE TABLE plans (
  kind text NOT NULL CHECK (kind IN ('send', 'heartbeat')),
  key text NOT NULL,
  version bigint NOT NULL,
  plan jsonb NOT NULL,
  PRIMARY KEY (kind, key)
);
`,
  },
  {
    version: 3,
    name: 'escalation chains',
    sql: `
ALTER TABLE plans DROP CONSTRAINT plans_kind_check;
ALTER TABLE plans ADD CONSTRAINT plans_kind_check CHECK (kind IN ('send', 'heartbeat', 'escalation'));
`,
  },
  {
    version: 4,
    name: 'fallback targets left to send',
    // A delivery that is no longer pending may still have a fallback target (ntfy, mail) to send: resumed like one.
    sql: `
CREATE INDEX IF NOT EXISTS notifications_fallback_pending ON notifications (lease_until NULLS FIRST)
  WHERE status <> 'pending' AND record->'delivery'->'channels' @> '[{"status": "pending"}]';
`,
  },
];

/** Advisory lock keys (one namespace for this service): migrations, retention. */
export const LOCK_MIGRATE = 0x4e4f5401;
export const LOCK_RETENTION = 0x4e4f5402;

/**
 * Brings the schema to the newest version. Instances starting together take turns on an advisory lock, so each step
 * runs once; every step commits with its version row, so a failed step leaves the previous version whole.
 */
export async function migrate(client: pg.ClientBase): Promise<number[]> {
  const applied: number[] = [];
  await client.query('SELECT pg_advisory_lock($1)', [LOCK_MIGRATE]);
  try {
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const done = new Set(rows.map((r) => r.version));
    const newest = Math.max(0, ...done);
    const known = Math.max(...MIGRATIONS.map((m) => m.version));
    if (newest > known) throw new Error(`The database schema is at version ${newest}, newer than this release knows (${known}): upgrade the service`);
    for (const step of MIGRATIONS) {
      if (done.has(step.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(step.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [step.version, step.name]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
      applied.push(step.version);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_MIGRATE]).catch(() => undefined);
  }
  return applied;
}
