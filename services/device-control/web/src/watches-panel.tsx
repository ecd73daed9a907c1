import { type ApiClient, type ErrorBody, ErrorNote, lockProps, toErrorBody, useAction } from '@homeops/web-kit';
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { SubDevice } from './hub-panel.js';
import type { Device, Watch } from './types.js';
import { WatchForm } from './watch-form.js';
import { conditionText, STATE_TEXT } from './watch-words.js';

// A watch moves from holding to firing on a timer, with no event on the stream: the list is read again this often
// (GET /watches costs no cloud message).
const REFRESH_MS = 10_000;

interface Props {
  client: ApiClient;
  devices: readonly Device[];
  /** The hubs' devices as the page last read them, by hub uuid: the form's sensors, and the list's sensor names. */
  hubs: Readonly<Record<string, SubDevice[]>>;
  onHub(uuid: string, list: SubDevice[]): void;
  /** Why this caller may not add or remove watches (they need admin), or null. */
  adminLock: string | null;
  /** Grows with each device event that may move a watch (a door, presence): the list is read again. */
  changes: number;
}

/** The device watches: each one's condition in words, where its episode stands and its cost; Remove and a form for admins. */
export function WatchesPanel({ client, devices, hubs, onHub, adminLock, changes }: Props) {
  const [watches, setWatches] = useState<Watch[] | null>(null);
  const [problem, setProblem] = useState<ErrorBody | null>(null);
  const load = useCallback(async () => {
    try {
      setWatches((await client.json<{ watches: Watch[] }>('GET', '/watches')).body.watches);
      setProblem(null);
    } catch (error) {
      setProblem(toErrorBody(error));
    }
  }, [client]);
  useEffect(() => {
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);
  useEffect(() => void load(), [load, changes]);
  const nameOf = (uuid: string) => devices.find((d) => d.uuid === uuid)?.name ?? uuid;
  // The form names a sensor by its id: the list says its name once the page has read the hub.
  const named = (c: Watch['condition']): Watch['condition'] =>
    'sensor' in c ? { ...c, sensor: hubs[c.device]?.find((s) => s.id === c.sensor)?.name ?? c.sensor } : c;

  return (
    <section class="card watches" aria-labelledby="watches-heading">
      <h2 id="watches-heading">Watches</h2>
      <p class="muted">Each sends one notification when its condition has held long enough, and ends its alarm when it clears (docs/watches.md).</p>
      <ErrorNote problem={problem} />
      {watches?.length === 0 ? <p class="muted">No watches yet.</p> : null}
      <ul class="watch-list">
        {(watches ?? []).map((w) => (
          <WatchItem
            key={w.name}
            client={client}
            watch={{ ...w, condition: named(w.condition) }}
            deviceName={nameOf(w.condition.device)}
            lock={adminLock}
            onRemoved={load}
          />
        ))}
      </ul>
      <WatchForm client={client} devices={devices} hubs={hubs} onHub={onHub} lock={adminLock} onAdded={load} />
    </section>
  );
}

function WatchItem({
  client,
  watch: w,
  deviceName,
  lock,
  onRemoved,
}: {
  client: ApiClient;
  watch: Watch;
  deviceName: string;
  lock: string | null;
  onRemoved(): Promise<void>;
}) {
  const { busy, problem, act } = useAction();
  const state = STATE_TEXT[w.state];
  const headingId = `watch-${w.name}`;
  const remove = () =>
    act(async () => {
      await client.json('DELETE', `/watches/${encodeURIComponent(w.name)}`);
      await onRemoved();
    });
  return (
    <li class="watch" aria-labelledby={headingId}>
      <div class="row">
        <h3 id={headingId}>{w.name}</h3>
        <span class={`badge ${state.tone}`} data-watch-state={w.state}>
          {state.text}
        </span>
      </div>
      <p>{conditionText(w.condition, deviceName)}</p>
      <div class="row">
        <span class="muted">
          Notifies {w.notify.recipient} at priority {w.notify.priority} · {w.messagesPerHour} cloud messages per hour
        </span>
        <button type="button" onClick={() => void remove()} {...lockProps(lock)} disabled={busy || lock !== null} aria-label={`Remove ${w.name}`}>
          Remove
        </button>
      </div>
      <ErrorNote problem={problem} />
    </li>
  );
}
