import { type ApiClient, type ErrorBody, ErrorNote, localTime, timeFromNow, toErrorBody } from '@homeops/web-kit';
import { useState } from 'preact/hooks';
import { Attachment } from './attachment.js';
import type { Notification } from './types.js';

const PRIORITY = { '-2': 'lowest', '-1': 'low', '0': 'normal', '1': 'high', '2': 'emergency' } as Record<string, string>;

function deliveryText({ delivery }: Notification): { text: string; tone: string } {
  switch (delivery.status) {
    case 'sent':
      return { text: 'Sent', tone: 'ok' };
    case 'pending':
      return { text: `Pending, next try ${timeFromNow(delivery.nextAttemptAt)}`, tone: 'warn' };
    case 'failed':
      return { text: `Failed: ${delivery.error ?? 'no reason given'}`, tone: 'bad' };
    case 'expired':
      return { text: 'Expired: too old to send', tone: 'warn' };
    default:
      return { text: 'Not sent (no push provider configured)', tone: 'warn' };
  }
}

interface Props {
  client: ApiClient;
  n: Notification;
  onChanged(n: Notification): void;
  onDeleted(id: string): void;
}

/** One notification: text, time, delivery, attachment, and read/unread/delete. */
export function NotificationItem({ client, n, onChanged, onDeleted }: Props) {
  const [problem, setProblem] = useState<ErrorBody | null>(null);
  const [busy, setBusy] = useState(false);
  const delivery = deliveryText(n);
  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
      setProblem(null);
    } catch (error) {
      setProblem(toErrorBody(error));
    } finally {
      setBusy(false);
    }
  };
  const toggleRead = () =>
    act(async () => onChanged((await client.json<Notification>('PATCH', `/notifications/${n.id}/${n.read ? 'unread' : 'read'}`)).body));
  const remove = () =>
    act(async () => {
      await client.json('DELETE', `/notifications/${n.id}`);
      onDeleted(n.id);
    });
  const headingId = `n-${n.id}`;

  return (
    <li class={`card notification${n.read ? '' : ' unread'}`} aria-labelledby={headingId} data-id={n.id}>
      <div class="row">
        <h3 id={headingId}>
          {n.read ? null : (
            <>
              <span class="dot" aria-hidden="true" />
              <span class="visually-hidden">Unread: </span>
            </>
          )}
          {n.title || '(no title)'}
        </h3>
        <time dateTime={n.createdAt} title={localTime(n.createdAt)} class="muted">
          {timeFromNow(n.createdAt)}
        </time>
      </div>
      <p class="message">{n.message}</p>
      {n.url ? (
        <p>
          <a href={n.url} rel="noopener noreferrer" target="_blank">
            {n.urlTitle || n.url}
          </a>
        </p>
      ) : null}
      {n.attachment ? <Attachment client={client} id={n.id} meta={n.attachment} /> : null}
      <div class="row">
        <span class="muted">
          Priority {PRIORITY[String(n.priority)] ?? n.priority}
          {n.sound ? ` · sound ${n.sound}` : ''} · <span class={`badge ${delivery.tone}`}>{delivery.text}</span>
        </span>
        <span class="actions">
          <button type="button" onClick={toggleRead} disabled={busy}>
            {n.read ? 'Mark unread' : 'Mark read'}
          </button>
          <button type="button" onClick={remove} disabled={busy} aria-label={`Delete ${n.title || 'notification'}`}>
            Delete
          </button>
        </span>
      </div>
      <ErrorNote problem={problem} />
    </li>
  );
}
