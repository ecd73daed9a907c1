import { type ApiClient, ApiProblem, localTime, timeFromNow } from '@homeops/web-kit';
import { useEffect, useState } from 'preact/hooks';
import { alarmText, Channels, deliveryText } from './delivery-state.js';
import type { Notification } from './types.js';

/** How often the stages are fetched again while a step may still go out: they reach other recipients' streams. */
const REFRESH_MS = 5_000;

/** A stage as fetched: its notification, not sent (yet), or of a recipient this key may not read. */
type Fetched = Notification | 'none' | 'hidden';

async function fetchRecord(client: ApiClient, id: string): Promise<Fetched> {
  try {
    return (await client.json<Notification>('GET', `/notifications/single/${encodeURIComponent(id)}`)).body;
  } catch (err) {
    // An id this key may not read answers 404 too (nothing is given away): the caller checks the recipient first.
    if (err instanceof ApiProblem && err.status === 404) return 'none';
    throw err;
  }
}

/**
 * When the chain ended, if it did: its first was read, or its alarm ended (acknowledged, cancelled, expired); a step
 * due after that never went out.
 */
function chainEndedAt(first: Notification): number | undefined {
  const e = first.emergency;
  const ends = [first.readAt, e?.acknowledgedAt, e?.cancelledAt, e?.expiredAt].filter((at): at is string => typeof at === 'string').map(Date.parse);
  return ends.length > 0 ? Math.min(...ends) : undefined;
}

/** A step's stage exists once the step is due (and the chain had not ended by then): only then is it fetched. */
const GRACE_MS = 2_000;

/** One stage's line: delivery, alarm (acknowledged by whom) and channels; a step not sent says when it is due. */
function StageLine({ step, recipient, stage, dueAt, ended }: { step: number; recipient: string; stage: Fetched; dueAt: string; ended: boolean }) {
  if (typeof stage === 'string') {
    const text = stage === 'hidden' ? 'not readable with this key' : ended ? 'not sent: the chain ended first' : `due ${timeFromNow(dueAt)}`;
    return (
      <li>
        Step {step} · {recipient} · <span class="muted">{text}</span>
      </li>
    );
  }
  const delivery = deliveryText(stage);
  const alarm = alarmText(stage);
  const sentAt = 'lastAttemptAt' in stage.delivery ? stage.delivery.lastAttemptAt : undefined;
  return (
    <li>
      Step {step} · {recipient} · <span class={`badge ${delivery.tone}`}>{delivery.text}</span>
      {sentAt ? <span class="muted"> at {localTime(sentAt)}</span> : null}
      {alarm ? (
        <>
          {' · '}
          <span class={`badge ${alarm.tone}`}>{alarm.text}</span>
        </>
      ) : null}
      <Channels n={stage} />
    </li>
  );
}

/** On a chain's first notification: every stage, the first included, as the API has it now. */
export function ChainStages({ client, first, mayRead }: { client: ApiClient; first: Notification; mayRead(recipient: string): boolean }) {
  const [stages, setStages] = useState<Record<string, Fetched>>({});
  const [now, setNow] = useState(() => Date.now());
  const steps = first.escalation?.steps ?? [];
  const startedAt = Date.parse(first.createdAt);
  const endedAt = chainEndedAt(first);
  const dueAt = (afterSeconds: number) => startedAt + afterSeconds * 1000;
  // Due by now (and before the end): fetched; due later: not sent yet; due after the end: never sent.
  const wanted = steps.filter((s) => mayRead(s.recipient) && dueAt(s.afterSeconds) + GRACE_MS <= Math.min(now, endedAt ?? Infinity)).map((s) => s.id);
  // Fetched again: a stage not there yet, one still pending, and after the end one not settled (read) yet.
  const stale = (st: Fetched | undefined) =>
    st === undefined ||
    (endedAt === undefined ? st === 'none' || (typeof st === 'object' && st.delivery.status === 'pending') : typeof st === 'object' && !st.read);
  const refetch = wanted.filter((id) => stale(stages[id])).join(' ');
  const waiting = refetch !== '' || (endedAt === undefined && steps.some((s) => mayRead(s.recipient) && !wanted.includes(s.id)));
  useEffect(() => {
    let live = true;
    if (refetch !== '')
      void Promise.all(refetch.split(' ').map(async (id) => [id, await fetchRecord(client, id)] as const))
        .then((found) => live && setStages((before) => ({ ...before, ...Object.fromEntries(found) })))
        .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [client, refetch, now]);
  // The stages reach other recipients' streams, not this one: while a stage may still change, look again now and then.
  useEffect(() => {
    if (!waiting) return undefined;
    const timer = setInterval(() => setNow(Date.now()), REFRESH_MS);
    return () => clearInterval(timer);
  }, [waiting]);
  if (steps.length === 0) return null;
  return (
    <ol class="stages" aria-label="Escalation">
      <StageLine step={0} recipient={first.recipient} stage={first} dueAt={first.createdAt} ended={endedAt !== undefined} />
      {steps.map((s, i) => (
        <StageLine
          key={s.id}
          step={i + 1}
          recipient={s.recipient}
          stage={mayRead(s.recipient) ? (stages[s.id] ?? 'none') : 'hidden'}
          dueAt={new Date(dueAt(s.afterSeconds)).toISOString()}
          ended={endedAt !== undefined && endedAt < dueAt(s.afterSeconds) + GRACE_MS}
        />
      ))}
    </ol>
  );
}

/** On a later stage: which chain it belongs to, by its first notification's title, linked to that inbox. */
export function StageOf({ client, stage }: { client: ApiClient; stage: Notification }) {
  const { of, step } = stage.escalation!;
  const [first, setFirst] = useState<Fetched | undefined>(undefined);
  useEffect(() => {
    let live = true;
    void fetchRecord(client, of)
      .then((found) => live && setFirst(found))
      .catch(() => live && setFirst('hidden'));
    return () => {
      live = false;
    };
  }, [client, of]);
  return (
    <p class="muted">
      Escalation: step {step} of{' '}
      {typeof first === 'object' ? (
        <a href={`#${new URLSearchParams({ recipient: first.recipient })}`} title={`The first notification, to ${first.recipient}`}>
          {first.title || '(no title)'}
        </a>
      ) : (
        `notification ${of}`
      )}
    </p>
  );
}
