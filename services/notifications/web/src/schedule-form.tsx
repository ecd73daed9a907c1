import { type ApiClient, ErrorNote, useAction } from '@homeops/web-kit';
import { useState } from 'preact/hooks';
import { MessageFields } from './message-fields.js';
import type { Scheduled } from './types.js';

/** A key for PUT /scheduled/{key} that says what it is: the title's (or message's) words and the time it was made. */
function keyFor(title: string, message: string): string {
  const words = (title || message)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `${words || 'send'}-${Date.now().toString(36)}`;
}

interface Props {
  client: ApiClient;
  recipient: string;
  recipients: readonly string[];
  /** Why this caller may not send at all, or null. */
  lock: string | null;
  /** The recipients its notifications:send is limited to; undefined: anyone. */
  allowed: readonly string[] | undefined;
  onScheduled(scheduled: Scheduled): void;
}

/** PUT /scheduled/{key}: a short notification sent in some minutes or at a time (at most 7 days ahead, the API says). */
export function ScheduleForm({ client, recipient, recipients, lock, allowed, onScheduled }: Props) {
  const [when, setWhen] = useState<'in' | 'at'>('in');
  const { busy, problem, act } = useAction();

  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const field = (name: string) => String(new FormData(form).get(name) ?? '').trim();
    const [title, message] = [field('title'), field('message')];
    const time = when === 'in' ? { delaySeconds: Math.round(Number(field('minutes')) * 60) } : { sendAt: new Date(field('sendAt')).toISOString() };
    return act(async () => {
      const body = { recipient: field('recipient'), message, ...(title ? { title } : {}), ...time };
      const { body: scheduled } = await client.json<Scheduled>('PUT', `/scheduled/${keyFor(title, message)}`, body);
      (form.elements.namedItem('message') as HTMLTextAreaElement).value = '';
      onScheduled(scheduled);
    });
  };

  return (
    <form class="schedule-form grid-form" onSubmit={(event) => void submit(event)} aria-label="Schedule a notification">
      <h3>Schedule one</h3>
      {lock !== null ? <p class="lock-note">{lock}: this page cannot schedule.</p> : null}
      <fieldset class="controls" disabled={lock !== null}>
        <MessageFields id="schedule-recipients" recipient={recipient} recipients={recipients} allowed={allowed} rows={2} />
        <fieldset class="when">
          <legend>When</legend>
          <div class="choices">
            <label class="check">
              <input type="radio" name="when" value="in" checked={when === 'in'} onChange={() => setWhen('in')} /> In some minutes
            </label>
            <label class="check">
              <input type="radio" name="when" value="at" checked={when === 'at'} onChange={() => setWhen('at')} /> At a time
            </label>
          </div>
          {when === 'in' ? (
            <label>
              Minutes from now
              <input name="minutes" type="number" required min={0} step="any" defaultValue="10" />
            </label>
          ) : (
            <label>
              Send at
              <input name="sendAt" type="datetime-local" required />
            </label>
          )}
        </fieldset>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Scheduling…' : 'Schedule'}
        </button>
      </fieldset>
      <ErrorNote problem={problem} />
    </form>
  );
}
