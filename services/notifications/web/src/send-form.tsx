import { type ApiClient, ChoiceOptions, type ErrorBody, ErrorNote, toErrorBody } from '@homeops/web-kit';
import { useState } from 'preact/hooks';
import { isAcceptedUrl } from '../../src/domain/text-rules.js';
import { PUSHOVER_SOUND_NAMES } from '../../src/adapters/pushover/sounds.js';
import { MessageFields } from './message-fields.js';
import type { Notification, Sound } from './types.js';

// The API's limits (Pushover's), so the form refuses what the API would.
const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;
const PRIORITIES = [
  [-2, 'Lowest (no alert)'],
  [-1, 'Low (quiet)'],
  [0, 'Normal'],
  [1, 'High (bypasses quiet hours)'],
  [2, 'Emergency (repeats until acknowledged)'],
] as const;
// Until (or unless) GET /sounds answers: Pushover's built-in sounds.
const BUILT_IN_SOUNDS: Sound[] = Object.entries(PUSHOVER_SOUND_NAMES).map(([name, description]) => ({ name, description }));
// Pushover's bounds of an emergency's retry and expire, in seconds.
const EMERGENCY_MIN_SECONDS = 30;
const EMERGENCY_MAX_SECONDS = 10_800;

/** Checks the browser cannot express with attributes; answers the error body the API would give. */
function check(form: HTMLFormElement): ErrorBody | null {
  const url = (form.elements.namedItem('url') as HTMLInputElement).value.trim();
  const file = (form.elements.namedItem('attachment') as HTMLInputElement).files?.[0];
  const details: Array<{ path: string; message: string }> = [];
  if (url !== '' && !isAcceptedUrl(url))
    details.push({ path: 'url', message: 'must be a link Pushover opens (http, https, tel:, sms:, an app link), not javascript: or data:' });
  if (file && file.size > MAX_ATTACHMENT_BYTES) details.push({ path: 'attachment', message: 'must be at most 5 MiB' });
  return details.length ? { error: 'Invalid request', solution: 'Fix the fields listed and send again', details } : null;
}

interface Props {
  client: ApiClient;
  recipient: string;
  recipients: string[];
  /** Why this caller may not send at all (it lacks notifications:send), or null. */
  lock: string | null;
  /** The recipients its notifications:send is limited to; undefined: anyone. */
  allowed: readonly string[] | undefined;
  /** The app's sounds from GET /sounds; null until they are read. */
  sounds: Sound[] | null;
  onSent(n: Notification): void;
}

/** POST /notifications as multipart/form-data, with Pushover's fields. */
export function SendForm({ client, recipient, recipients, lock, allowed, sounds, onSent }: Props) {
  const [problem, setProblem] = useState<ErrorBody | null>(null);
  const [priority, setPriority] = useState('0');
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const invalid = check(form);
    if (invalid) return setProblem(invalid);
    const data = new FormData(form);
    for (const [name, value] of [...data]) {
      if (value === '' || (value instanceof File && value.name === '')) data.delete(name);
    }
    setBusy(true);
    try {
      const { body } = await client.send<Notification>('/notifications', { method: 'POST', body: data });
      setProblem(null);
      setNote(`Stored for ${body.recipient}; delivery ${body.delivery.status}.`);
      (form.elements.namedItem('message') as HTMLTextAreaElement).value = '';
      (form.elements.namedItem('attachment') as HTMLInputElement).value = '';
      onSent(body);
    } catch (error) {
      setNote(null);
      setProblem(toErrorBody(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card send-form" onSubmit={submit} aria-label="Send a notification">
      <h2>Send</h2>
      {lock !== null ? <p class="lock-note">{lock}: this page cannot send.</p> : null}
      <fieldset class="controls" disabled={lock !== null}>
        <MessageFields id="recipient-names" recipient={recipient} recipients={recipients} allowed={allowed} rows={3} />
        <div class="fields">
          <label>
            Priority
            <select name="priority" value={priority} onChange={(e) => setPriority(e.currentTarget.value)}>
              <ChoiceOptions choices={PRIORITIES} />
            </select>
          </label>
          <label>
            Sound
            <select name="sound">
              <option value="">Device default</option>
              {(sounds ?? BUILT_IN_SOUNDS).map((s) => (
                <option key={s.name} value={s.name}>
                  {s.description || s.name}
                </option>
              ))}
            </select>
          </label>
        </div>
        {priority === '2' ? (
          <>
            <div class="fields">
              <label>
                Repeat every (seconds)
                <input name="retry" type="number" min={EMERGENCY_MIN_SECONDS} max={EMERGENCY_MAX_SECONDS} step={1} aria-describedby="emergency-hint" />
              </label>
              <label>
                Stop repeating after (seconds)
                <input name="expire" type="number" min={EMERGENCY_MIN_SECONDS} max={EMERGENCY_MAX_SECONDS} step={1} aria-describedby="emergency-hint" />
              </label>
            </div>
            <p id="emergency-hint" class="muted hint">
              Optional, {EMERGENCY_MIN_SECONDS} to {EMERGENCY_MAX_SECONDS} seconds; empty uses the service's defaults. Pushover stops after 50 repeats whatever
              the time.
            </p>
          </>
        ) : null}
        <div class="fields">
          <label>
            URL
            <input name="url" inputMode="url" maxLength={512} placeholder="https://…, tel:…" />
          </label>
          <label>
            URL title
            <input name="urlTitle" maxLength={100} />
          </label>
        </div>
        <label class="check">
          <input name="monospace" type="checkbox" value="true" /> Monospace font
        </label>
        <label>
          Attachment (at most 5 MiB)
          <input name="attachment" type="file" />
        </label>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Sending…' : 'Send'}
        </button>
        {note ? (
          <p class="muted" role="status">
            {note}
          </p>
        ) : null}
      </fieldset>
      <ErrorNote problem={problem} />
    </form>
  );
}
