import { type ApiClient, ChoiceOptions, ErrorNote, useAction } from '@homeops/web-kit';
import { useState } from 'preact/hooks';
import type { SubDevice } from './hub-panel.js';
import { hasSensor, SensorField } from './sensor-field.js';
import type { Device, WatchBody } from './types.js';
import { conditionOf, defaultPriority, KINDS, type WatchKind } from './watch-kinds.js';
import { PRIORITIES } from './watch-words.js';

interface Props {
  client: ApiClient;
  devices: readonly Device[];
  /** The hubs' devices as the page last read them, by hub uuid. */
  hubs: Readonly<Record<string, SubDevice[]>>;
  onHub(uuid: string, list: SubDevice[]): void;
  /** Why this caller may not add watches (they need admin), or null. */
  lock: string | null;
  onAdded(): Promise<void>;
}

/** PUT /watches/{name}: a watch on one device (or one sensor behind a hub), and whom it notifies. */
export function WatchForm({ client, devices, hubs, onHub, lock, onAdded }: Props) {
  const [kind, setKind] = useState<WatchKind>('doorOpen');
  const [chosen, setChosen] = useState('');
  const [priority, setPriority] = useState(defaultPriority(kind));
  const { busy, problem, act } = useAction();
  const spec = KINDS[kind];
  const fitting = devices.filter((d) => spec.needs === undefined || d.capabilities.includes(spec.needs));
  const device = fitting.find((d) => d.uuid === chosen) ?? fitting[0];
  // A hub condition needs one of the hub's sensors; the others go to the service as filled in, as before.
  const ready = spec.sensors === undefined || (device !== undefined && hasSensor(spec.sensors, hubs[device.uuid]));

  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    const body: WatchBody = { condition: conditionOf(kind, text), notify: { recipient: text('recipient'), priority } };
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
            <select
              name="kind"
              value={kind}
              onChange={(e) => {
                const next = e.currentTarget.value as WatchKind;
                setKind(next);
                setPriority(defaultPriority(next));
              }}
            >
              <ChoiceOptions choices={Object.entries(KINDS).map(([value, { text }]) => [value, text] as const)} />
            </select>
          </label>
          <label>
            Device
            <select name="device" required value={device?.uuid} onChange={(e) => setChosen(e.currentTarget.value)}>
              <ChoiceOptions choices={fitting.map((d) => [d.uuid, d.name] as const)} />
            </select>
          </label>
          {spec.sensors && device ? (
            <SensorField key={device.uuid} client={client} hub={device} sensors={spec.sensors} subdevices={hubs[device.uuid]} onSubdevices={onHub} />
          ) : null}
          {spec.minutes ? (
            <label>
              Minutes
              <input name="minutes" type="number" required min={0} step="any" defaultValue="30" />
            </label>
          ) : null}
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
          {kind === 'open' ? (
            <label>
              Seconds
              <input name="seconds" type="number" required min={0} max={7 * 86_400} step="any" defaultValue="120" />
            </label>
          ) : null}
          {kind === 'temperature' ? (
            <>
              <label>
                Above or below
                <select name="bound">
                  <ChoiceOptions
                    choices={[
                      ['above', 'Above'],
                      ['below', 'Below'],
                    ]}
                  />
                </select>
              </label>
              <label>
                Temperature (°C)
                <input name="celsius" type="number" required min={-50} max={150} step="any" defaultValue="30" />
              </label>
            </>
          ) : null}
          {kind === 'batteryBelow' ? (
            <label>
              Battery below (%)
              <input name="percent" type="number" required min={0} max={100} step="any" defaultValue="20" />
            </label>
          ) : null}
          <label>
            Recipient
            <input name="recipient" required maxLength={256} placeholder="family" />
          </label>
          <label>
            Priority
            <select name="priority" value={priority} onChange={(e) => setPriority(Number(e.currentTarget.value))}>
              <ChoiceOptions choices={PRIORITIES} />
            </select>
          </label>
        </div>
        <button type="submit" class="primary" disabled={busy || !ready}>
          {busy ? 'Adding…' : 'Add watch'}
        </button>
      </fieldset>
      <ErrorNote problem={problem} />
    </form>
  );
}
