import { type ApiClient, ChoiceOptions, ErrorNote, useAction } from '@homeops/web-kit';
import { useState } from 'preact/hooks';
import type { Device, WatchBody } from './types.js';
import { PRIORITIES } from './watch-words.js';

type Kind = 'doorOpen' | 'offline' | 'powerBelow';

/** The conditions this form adds, and the capability a device needs for each (the service refuses others). */
const KINDS: Record<Kind, { text: string; needs?: Device['capabilities'][number] }> = {
  doorOpen: { text: 'Door open', needs: 'garageDoor' },
  offline: { text: 'Offline' },
  powerBelow: { text: 'Power below (washer done)', needs: 'energy' },
};

interface Props {
  client: ApiClient;
  devices: readonly Device[];
  /** Why this caller may not add watches (they need admin), or null. */
  lock: string | null;
  onAdded(): Promise<void>;
}

/** PUT /watches/{name}: a door-open, offline or power-below watch for one device, and whom it notifies. */
export function WatchForm({ client, devices, lock, onAdded }: Props) {
  const [kind, setKind] = useState<Kind>('doorOpen');
  const { busy, problem, act } = useAction();
  const needs = KINDS[kind].needs;
  const fitting = devices.filter((d) => needs === undefined || d.capabilities.includes(needs));

  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    const number = (name: string) => Number(text(name));
    const [device, minutes] = [text('device'), number('minutes')];
    const condition: WatchBody['condition'] =
      kind === 'powerBelow'
        ? { kind, device, minutes, watts: number('watts'), ...(text('afterAbove') !== '' ? { afterAbove: number('afterAbove') } : {}) }
        : { kind, device, minutes };
    const body: WatchBody = { condition, notify: { recipient: text('recipient'), priority: number('priority') } };
    return act(async () => {
      await client.json('PUT', `/watches/${encodeURIComponent(text('name'))}`, body);
      (form.elements.namedItem('name') as HTMLInputElement).value = '';
      await onAdded();
    });
  };

  return (
    <form class="watch-form grid-form" aria-label="Add a watch" onSubmit={(event) => void submit(event)}>
      <h3>Add a watch</h3>
      {lock !== null ? <p class="lock-note">{lock}: only an admin adds and removes watches.</p> : null}
      <fieldset class="controls" disabled={lock !== null}>
        <div class="fields">
          <label>
            Name
            <input name="name" required pattern="[a-z0-9][a-z0-9\-]{0,62}" title="lowercase letters, digits and dashes" placeholder="garage-open" />
          </label>
          <label>
            Condition
            <select name="kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
              <ChoiceOptions choices={Object.entries(KINDS).map(([value, { text }]) => [value, text] as const)} />
            </select>
          </label>
          <label>
            Device
            <select name="device" required>
              {fitting.map((d) => (
                <option key={d.uuid} value={d.uuid}>
                  {d.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Minutes
            <input name="minutes" type="number" required min={0} step="any" defaultValue="30" />
          </label>
          {kind === 'powerBelow' ? (
            <>
              <label>
                Watts
                <input name="watts" type="number" required min={0} step="any" defaultValue="5" />
              </label>
              <label>
                After above (W, optional)
                <input name="afterAbove" type="number" min={0} step="any" placeholder="200" />
              </label>
            </>
          ) : null}
          <label>
            Recipient
            <input name="recipient" required maxLength={256} placeholder="family" />
          </label>
          <label>
            Priority
            <select name="priority">
              {PRIORITIES.map(([value, words]) => (
                <option key={value} value={value} selected={value === 0}>
                  {words}
                </option>
              ))}
            </select>
          </label>
        </div>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Adding…' : 'Add watch'}
        </button>
      </fieldset>
      <ErrorNote problem={problem} />
    </form>
  );
}
