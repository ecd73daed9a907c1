import { type ApiClient, ErrorNote, localTime, lockProps, timeFromNow, useAction } from '@homeops/web-kit';
import { Attachment } from './attachment.js';
import { alarmText, Channels, deliveryText } from './delivery-state.js';
import { ChainStages, StageOf } from './escalation-chain.js';
import type { Notification } from './types.js';

const PRIORITY = { '-2': 'lowest', '-1': 'low', '0': 'normal', '1': 'high', '2': 'emergency' } as Record<string, string>;

interface Props {
  client: ApiClient;
  n: Notification;
  /** Why this caller may not resend it (notifications:send for its recipient), or null. */
  resendLock: string | null;
  /** Whether this caller may read a recipient's notifications (a chain's stages go to others). */
  mayRead(recipient: string): boolean;
  onChanged(n: Notification): void;
  onDeleted(id: string): void;
}

/** One notification: text, time, delivery, attachment, and read/unread/delete. */
export function NotificationItem({ client, n, resendLock, mayRead, onChanged, onDeleted }: Props) {
  const { busy, problem, act } = useAction();
  const delivery = deliveryText(n);
  const alarm = alarmText(n);
  // Only worth saying when it is not the obvious one (the recipient's own entry, or the single default key).
  const sentTo = 'to' in n.delivery ? n.delivery.to : undefined;
  const to = sentTo !== undefined && sentTo !== n.recipient && sentTo !== 'default' ? sentTo : null;
  const resendable = ['failed', 'expired', 'unknown'].includes(n.delivery.status);
  const toggleRead = () => act(async () => onChanged((await client.json<Notification>('PATCH', `/notifications/${n.id}/${n.read ? 'unread' : 'read'}`)).body));
  const remove = () =>
    act(async () => {
      await client.json('DELETE', `/notifications/${n.id}`);
      onDeleted(n.id);
    });
  const resend = () => act(async () => onChanged((await client.json<Notification>('POST', `/notifications/${n.id}/resend`)).body));
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
      {n.escalation && n.escalation.step > 0 ? <StageOf client={client} stage={n} /> : null}
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
          {n.sound ? ` · sound ${n.sound}` : ''}
          {to !== null ? ` · to ${to}` : ''} · <span class={`badge ${delivery.tone}`}>{delivery.text}</span>
          {alarm ? (
            <>
              {' · '}
              <span class={`badge ${alarm.tone}`}>{alarm.text}</span>
            </>
          ) : null}
        </span>
        <span class="actions">
          {resendable ? (
            <button type="button" onClick={resend} {...lockProps(resendLock)} disabled={busy || resendLock !== null}>
              Resend
            </button>
          ) : null}
          <button type="button" onClick={toggleRead} disabled={busy}>
            {n.read ? 'Mark unread' : 'Mark read'}
          </button>
          <button type="button" onClick={remove} disabled={busy} aria-label={`Delete ${n.title || 'notification'}`}>
            Delete
          </button>
        </span>
      </div>
      <Channels n={n} />
      {n.escalation?.step === 0 ? <ChainStages client={client} first={n} mayRead={mayRead} /> : null}
      <ErrorNote problem={problem} />
    </li>
  );
}
