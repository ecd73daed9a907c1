import type pg from 'pg';
import type { Plan, PlanStore, StoredPlan } from '../../../domain/plans/plan.js';
import { storageUnavailable } from './pg-errors.js';
import { migrate } from './pg-migrations.js';

/** The plan as stored in the `plan` column: never its version, which lives in its own column. */
function planColumn(plan: Plan): string {
  const { version: _version, ...rest } = plan as Partial<StoredPlan>;
  return JSON.stringify(rest);
}

/**
 * Scheduled sends and heartbeats in PostgreSQL, shared by every instance on the database. Each change is one
 * statement; `swap` is a compare-and-set on the row's version, so of two instances claiming a due plan exactly one
 * changes the row. It runs on the history's pool (its timeouts, its connection limit) and never ends it.
 */
export class PgPlanStore implements PlanStore {
  constructor(private readonly pool: pg.Pool) {}

  /** Brings the schema up to date (a no-op once the history has opened: same migrations, same advisory lock). */
  async open(): Promise<void> {
    const client = await this.pool.connect().catch((err: unknown) => {
      throw storageUnavailable(err);
    });
    try {
      // As the history does: a schema newer than this release stops the start with its own message.
      await migrate(client);
    } finally {
      client.release();
    }
  }

  /** The pool belongs to the history, which ends it. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  async list(): Promise<StoredPlan[]> {
    const rows = await this.query<{ plan: StoredPlan }>(`SELECT plan || jsonb_build_object('version', version) AS plan FROM plans ORDER BY kind, key`, []);
    return rows.map((r) => r.plan);
  }

  async get(kind: Plan['kind'], key: string): Promise<StoredPlan | undefined> {
    const rows = await this.query<{ plan: StoredPlan }>(
      `SELECT plan || jsonb_build_object('version', version) AS plan FROM plans WHERE kind = $1 AND key = $2`,
      [kind, key],
    );
    return rows[0]?.plan;
  }

  async count(): Promise<number> {
    const rows = await this.query<{ count: number }>('SELECT count(*)::int AS count FROM plans', []);
    return rows[0]!.count;
  }

  async countFor(recipient: string): Promise<number> {
    const rows = await this.query<{ count: number }>(`SELECT count(*)::int AS count FROM plans WHERE plan #>> '{notification,recipient}' = $1`, [recipient]);
    return rows[0]!.count;
  }

  async put(plan: Plan): Promise<StoredPlan> {
    const rows = await this.query<{ plan: StoredPlan }>(
      `INSERT INTO plans AS p (kind, key, version, plan) VALUES ($1, $2, 1, $3::jsonb)
       ON CONFLICT (kind, key) DO UPDATE SET version = p.version + 1, plan = EXCLUDED.plan
       RETURNING p.plan || jsonb_build_object('version', p.version) AS plan`,
      [plan.kind, plan.key, planColumn(plan)],
    );
    return rows[0]!.plan;
  }

  async swap(kind: Plan['kind'], key: string, version: number, next: Plan | undefined): Promise<boolean> {
    if (version === 0) {
      if (next === undefined) return false;
      const inserted = await this.affected('INSERT INTO plans (kind, key, version, plan) VALUES ($1, $2, 1, $3::jsonb) ON CONFLICT (kind, key) DO NOTHING', [
        kind,
        key,
        planColumn(next),
      ]);
      return inserted === 1;
    }
    const changed =
      next === undefined
        ? await this.affected('DELETE FROM plans WHERE kind = $1 AND key = $2 AND version = $3', [kind, key, version])
        : await this.affected('UPDATE plans SET version = version + 1, plan = $4::jsonb WHERE kind = $1 AND key = $2 AND version = $3', [
            kind,
            key,
            version,
            planColumn(next),
          ]);
    return changed === 1;
  }

  async remove(kind: Plan['kind'], key: string): Promise<boolean> {
    return (await this.affected('DELETE FROM plans WHERE kind = $1 AND key = $2', [kind, key])) === 1;
  }

  private async query<R extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<R[]> {
    return (await this.run<R>(sql, values)).rows;
  }

  /** How many rows the statement changed. */
  private async affected(sql: string, values: unknown[]): Promise<number> {
    return (await this.run(sql, values)).rowCount ?? 0;
  }

  /** Any failure (down, restarting, pool exhausted, timed out) is the history's 503 STORAGE_UNAVAILABLE. */
  private async run<R extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(sql, values);
    } catch (err) {
      throw storageUnavailable(err);
    }
  }
}
