import { type ApiClient, type ErrorBody, ErrorNote, localTime, lockProps, timeFromNow, useAction } from '@homeops/web-kit';
import { ScheduleForm } from './schedule-form.js';
import type { Scheduled } from './types.js';

interface Props {
  client: ApiClient;
  /** What GET /scheduled answered (the recipients this caller may read); null until read. */
  scheduled: Scheduled[] | null;
  problem: ErrorBody | null;
  /** Why this caller may not read them, or null. */
  readLock: string | null;
  /** Why this caller may not send to `recipient` (notifications:send and its limit), or null. */
  sendLockOf(recipient: string): string | null;
  /** The form's props: who it offers, and why it is disabled. */
  form: { recipient: string; recipients: readonly string[]; lock: string | null; allowed: readonly string[] | undefined };
  onChanged(): Promise<void>;
}

/** Notifications scheduled ahead and not sent yet, soonest first, each with Cancel; and a form to schedule one. */
export function ScheduledPanel({ client, scheduled, problem, readLock, sendLockOf, form, onChanged }: Props) {
  return (
    <section class="card plans" aria-labelledby="scheduled-heading">
      <h2 id="scheduled-heading">Scheduled</h2>
      {readLock !== null ? <p class="lock-note">{readLock}: the scheduled sends are not shown.</p> : null}
      <ErrorNote problem={problem} />
      {scheduled?.length === 0 ? <p class="muted">Nothing scheduled.</p> : null}
      <ul class="plan-list">
        {(scheduled ?? []).map((s) => (
          <ScheduledItem key={s.key} client={client} scheduled={s} lock={sendLockOf(s.notification.recipient)} onCancelled={onChanged} />
        ))}
      </ul>
      <ScheduleForm key={form.recipient} client={client} {...form} onScheduled={() => void onChanged()} />
    </section>
  );
}

function ScheduledItem({
  client,
  scheduled: s,
  lock,
  onCancelled,
}: {
  client: ApiClient;
  scheduled: Scheduled;
  lock: string | null;
  onCancelled(): Promise<void>;
}) {
  const { busy, problem, act } = useAction();
  const { recipient, title, message } = s.notification;
  const headingId = `scheduled-${s.key}`;
  const cancel = () =>
    act(async () => {
      await client.json('DELETE', `/scheduled/${encodeURIComponent(s.key)}`);
      await onCancelled();
    });
  return (
    <li class="plan" aria-labelledby={headingId} data-key={s.key}>
      <div class="row">
        <h3 id={headingId}>{title || message}</h3>
        <time dateTime={s.sendAt} title={localTime(s.sendAt)} class="muted">
          {timeFromNow(s.sendAt)}
        </time>
      </div>
      {title ? <p class="message">{message}</p> : null}
      <div class="row">
        <span class="muted">
          To {recipient} at {localTime(s.sendAt)} · key <code>{s.key}</code>
        </span>
        <button type="button" onClick={() => void cancel()} {...lockProps(lock)} disabled={busy || lock !== null} aria-label={`Cancel ${s.key}`}>
          Cancel
        </button>
      </div>
      <ErrorNote problem={problem} />
    </li>
  );
}
