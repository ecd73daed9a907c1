import {
  AccessBar,
  type ApiClient,
  type ErrorBody,
  ErrorNote,
  KeyPrompt,
  openEventStream,
  type StreamState,
  TokensPanel,
  toErrorBody,
  useAccess,
  useClientState,
} from '@homeops/web-kit';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { HeartbeatsPanel } from './heartbeats-panel.js';
import { useInbox } from './inbox-state.js';
import { notificationScopeChoices, readableRecipients, recipientBlock, recipientsOf } from './notification-access.js';
import { NotificationItem } from './notification-item.js';
import { usePlans } from './plans-state.js';
import { RecipientPicker } from './recipient-picker.js';
import { ScheduledPanel } from './scheduled-panel.js';
import { SendForm } from './send-form.js';
import type { Notification, RecipientSummary, Sound } from './types.js';

// Events that carry the whole record, changed.
const RECORD_EVENTS = ['created', 'read', 'unread', 'delivery', 'acknowledged', 'alarm-ended'];

const hashRecipient = () => new URLSearchParams(location.hash.slice(1)).get('recipient');

/**
 * The inbox page: recipients with unread badges live from the stream of every recipient, the chosen one's history, a
 * send form; beside it the scheduled sends and the heartbeats.
 */
export function App({ client }: { client: ApiClient }) {
  const { keyNeeded, version } = useClientState(client);
  // Nothing is read before the service says what this key may read; the loads below follow `access`, not `version`.
  const { access, problem: accessProblem } = useAccess(client, version);
  const readLock = access.lacks('notifications:read');
  const sendLock = access.lacks('notifications:send');
  const [tokensOpen, setTokensOpen] = useState(false);
  const [recipients, setRecipients] = useState<RecipientSummary[] | null>(null);
  const [recipient, setRecipient] = useState<string | null>(hashRecipient());
  const [stream, setStream] = useState<StreamState>('connecting');
  const [problem, setProblem] = useState<ErrorBody | null>(null);
  const [sounds, setSounds] = useState<Sound[] | null>(null);
  const inbox = useInbox(client, recipient);
  const plans = usePlans(client, readLock);
  const sentinel = useRef<HTMLDivElement>(null);
  const marked = useRef(false);

  const loadRecipients = useCallback(async () => {
    try {
      const { body } = await client.json<RecipientSummary[]>('GET', '/recipients');
      setRecipients(body);
      setProblem(null);
    } catch (error) {
      if (!client.keyNeeded) setProblem(toErrorBody(error));
    }
  }, [client]);

  // A recipient typed into the address bar, or back and forward.
  useEffect(() => {
    const follow = () => setRecipient((current) => hashRecipient() ?? current);
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);

  useEffect(() => {
    if (readLock === null) void loadRecipients();
  }, [readLock, loadRecipients]);

  // Those this caller may read; the one shown is the one asked for when it may read it, else the first it may.
  const readable = useMemo(() => readableRecipients(recipients ?? [], access), [recipients, access]);
  useEffect(() => {
    if (readLock !== null) return;
    const mayRead = (r: string | null) => r !== null && recipientBlock(access, 'notifications:read', r) === null;
    setRecipient((current) => (mayRead(current) ? current : (readable[0]?.recipient ?? null)));
  }, [access, readLock, readable]);

  // The app's sounds (custom ones included); the form offers the built-in list until they arrive.
  useEffect(() => {
    if (sendLock !== null) return;
    client.json<{ sounds: Sound[] }>('GET', '/sounds').then(
      ({ body }) => setSounds(body.sounds),
      () => undefined,
    );
  }, [client, sendLock]);

  const { reset, loadPage, upsert, remove, markAllRead } = inbox;
  const loadPlans = plans.load;
  // The recipient whose inbox is shown, for the stream's events; `reopened` counts the stream's reconnections.
  const shown = useRef(recipient);
  const [reopened, setReopened] = useState(0);
  useEffect(() => {
    shown.current = recipient;
    if (recipient === null || recipientBlock(access, 'notifications:read', recipient) !== null) return;
    history.replaceState(null, '', `#${new URLSearchParams({ recipient })}`);
    reset();
    void loadPage(null);
  }, [access, recipient, reopened, reset, loadPage]);

  // One stream of every recipient's events, open whatever is chosen: a recipient's first notification (on an empty
  // history too) reaches the picker as it happens, and the inbox shown follows its own events.
  useEffect(() => {
    if (readLock !== null) return;
    let opened = 0;
    return openEventStream(client, '/events', {
      onState: setStream,
      onOpen: () => {
        // Reopened after a drop: what changed meanwhile is read again.
        if (opened++ === 0) return;
        void loadRecipients();
        void loadPlans();
        setReopened((n) => n + 1);
      },
      onEvent: ({ type, data }) => {
        const event = data as Partial<Notification> & { id: string; recipient: string; readAt: string };
        if (event.recipient === shown.current) {
          if (type === 'deleted') remove(event.id);
          else if (type === 'read-all') markAllRead(event.readAt);
          else if (RECORD_EVENTS.includes(type)) upsert(data as Notification);
        }
        void loadRecipients();
        // A scheduled send that went out, or a heartbeat's alarm, is a new notification.
        if (type === 'created') void loadPlans();
      },
    });
  }, [client, readLock, upsert, remove, markAllRead, loadRecipients, loadPlans]);

  // The first page on screen: what the speed target of the inbox measures.
  useEffect(() => {
    if (inbox.loaded && !marked.current) {
      marked.current = true;
      performance.mark('inbox-first-page');
    }
  }, [inbox.loaded]);

  // Infinite scroll: the next page loads when the end of the list comes into view.
  useEffect(() => {
    const target = sentinel.current;
    if (!target || inbox.next === null) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) void loadPage(inbox.next);
    });
    observer.observe(target);
    return () => observer.disconnect();
  }, [inbox.next, inbox.items.length, loadPage]);

  const current = readable.find((r) => r.recipient === recipient);
  const names = readable.map((r) => r.recipient);
  const sendTo = recipientsOf(access, 'notifications:send');
  const sendLockOf = (r: string) => recipientBlock(access, 'notifications:send', r);
  const readAll = async () => {
    if (recipient === null) return;
    try {
      await client.json('POST', `/notifications/${encodeURIComponent(recipient)}/read-all`);
      markAllRead(new Date().toISOString());
      void loadRecipients();
    } catch (error) {
      inbox.setProblem(toErrorBody(error));
    }
  };

  return (
    <>
      <header class="topbar">
        <h1>Notifications</h1>
        <div class="statusbar" role="status" aria-label="Service status">
          <span>Live: {stream === 'open' ? 'on' : stream}</span>
          {current ? (
            <span>
              <strong>{current.unread}</strong> unread of {current.total}
            </span>
          ) : null}
        </div>
        <AccessBar client={client} access={access} tokensOpen={tokensOpen} onTokens={setTokensOpen} />
      </header>
      <main>
        {keyNeeded ? <KeyPrompt client={client} /> : null}
        {tokensOpen && access.isAdmin ? <TokensPanel client={client} choices={notificationScopeChoices(names)} open={access.me?.kind === 'open'} /> : null}
        <ErrorNote problem={accessProblem} />
        <ErrorNote problem={problem} />
        <div class="layout">
          {access.known && readLock ? (
            <p class="lock-note">{readLock}: this page cannot show any inbox.</p>
          ) : (
            <section aria-label="Inbox">
              <RecipientPicker recipients={readable} selected={recipient} onSelect={setRecipient} />
              <div class="row inbox-head">
                <h2>{recipient ? `Inbox of ${recipient}` : 'Inbox'}</h2>
                <button type="button" onClick={readAll} disabled={!current?.unread}>
                  Mark all read
                </button>
              </div>
              <ErrorNote problem={inbox.problem} />
              {recipients !== null && readable.length === 0 ? <p class="muted">No notifications yet. Send one with the form.</p> : null}
              {inbox.loaded && inbox.items.length === 0 && recipient !== null ? <p class="muted">Nothing here.</p> : null}
              <ul class="inbox">
                {inbox.items.map((n) => (
                  <NotificationItem
                    key={n.id}
                    client={client}
                    n={n}
                    resendLock={recipientBlock(access, 'notifications:send', n.recipient)}
                    mayRead={(r) => recipientBlock(access, 'notifications:read', r) === null}
                    onChanged={upsert}
                    onDeleted={remove}
                  />
                ))}
              </ul>
              <div ref={sentinel} class="sentinel">
                {inbox.next !== null ? <span class="muted">Loading more…</span> : null}
              </div>
            </section>
          )}
          <div class="side">
            <SendForm
              key={recipient ?? ''}
              client={client}
              recipient={recipient ?? ''}
              recipients={names}
              lock={sendLock}
              allowed={sendTo}
              sounds={sounds}
              onSent={(n) => {
                void loadRecipients();
                if (recipient === null) setRecipient(n.recipient);
              }}
            />
            <ScheduledPanel
              client={client}
              scheduled={plans.scheduled}
              problem={plans.problem}
              readLock={access.known ? readLock : null}
              sendLockOf={sendLockOf}
              form={{ recipient: recipient ?? '', recipients: names, lock: sendLock, allowed: sendTo }}
              onChanged={loadPlans}
            />
            <HeartbeatsPanel
              client={client}
              heartbeats={plans.heartbeats}
              readLock={access.known ? readLock : null}
              sendLockOf={sendLockOf}
              onChanged={loadPlans}
            />
          </div>
        </div>
      </main>
    </>
  );
}
