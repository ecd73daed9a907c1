import { type ApiClient, ErrorNote, localTime, lockProps, timeFromNow, useAction } from '@homeops/web-kit';
import type { Heartbeat } from './types.js';

interface Props {
  client: ApiClient;
  /** What GET /heartbeats answered (the recipients this caller may read); null until read. */
  heartbeats: Heartbeat[] | null;
  /** Why this caller may not read them, or null. */
  readLock: string | null;
  /** Why this caller may not ping or remove one of `recipient` (notifications:send and its limit), or null. */
  sendLockOf(recipient: string): string | null;
  onChanged(): Promise<void>;
}

/** The heartbeats: up or down, the last ping, when the next is due, the URL cron pings; Ping now and Remove. */
export function HeartbeatsPanel({ client, heartbeats, readLock, sendLockOf, onChanged }: Props) {
  return (
    <section class="card plans" aria-labelledby="heartbeats-heading">
      <h2 id="heartbeats-heading">Heartbeats</h2>
      {readLock !== null ? <p class="lock-note">{readLock}: the heartbeats are not shown.</p> : null}
      {heartbeats?.length === 0 ? (
        <p class="muted">
          None yet. A script makes one with <code>PUT /heartbeats/&lt;name&gt;</code> and pings it from cron (docs/scheduled.md).
        </p>
      ) : null}
      <ul class="plan-list">
        {(heartbeats ?? []).map((h) => (
          <HeartbeatItem key={h.name} client={client} heartbeat={h} lock={sendLockOf(h.notification.recipient)} onChanged={onChanged} />
        ))}
      </ul>
    </section>
  );
}

function HeartbeatItem({
  client,
  heartbeat: h,
  lock,
  onChanged,
}: {
  client: ApiClient;
  heartbeat: Heartbeat;
  lock: string | null;
  onChanged(): Promise<void>;
}) {
  const { busy, problem, act } = useAction();
  const headingId = `heartbeat-${h.name}`;
  const path = `/heartbeats/${encodeURIComponent(h.name)}`;
  const call = (method: string, suffix: string) =>
    act(async () => {
      await client.json(method, `${path}${suffix}`);
      await onChanged();
    });
  const up = h.state === 'up';
  return (
    <li class="plan" aria-labelledby={headingId} data-name={h.name}>
      <div class="row">
        <h3 id={headingId}>{h.name}</h3>
        <span class={`badge ${up ? 'ok' : 'bad'}`}>{up ? 'up' : `down since ${timeFromNow(h.missedAt)}`}</span>
      </div>
      <p class="muted">
        Last ping{' '}
        <time dateTime={h.lastPingAt} title={localTime(h.lastPingAt)}>
          {timeFromNow(h.lastPingAt)}
        </time>
        {h.nextDueAt ? (
          <>
            {' · next due '}
            <time dateTime={h.nextDueAt} title={localTime(h.nextDueAt)}>
              {timeFromNow(h.nextDueAt)}
            </time>
          </>
        ) : null}
        {` · when missed: ${h.notification.title || h.notification.message} to ${h.notification.recipient}`}
      </p>
      <p class="ping">
        <code>{`${location.origin}${h.pingPath}`}</code>
      </p>
      <div class="row actions">
        <button
          type="button"
          onClick={() => void call('POST', '/ping')}
          {...lockProps(lock)}
          disabled={busy || lock !== null}
          aria-label={`Ping now: ${h.name}`}
        >
          Ping now
        </button>
        <button type="button" onClick={() => void call('DELETE', '')} {...lockProps(lock)} disabled={busy || lock !== null} aria-label={`Remove ${h.name}`}>
          Remove
        </button>
      </div>
      <ErrorNote problem={problem} />
    </li>
  );
}
