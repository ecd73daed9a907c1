import { type ApiClient, type ErrorBody, ErrorNote, lockProps, timeFromNow, toErrorBody } from '@homeops/web-kit';
import { useCallback, useState } from 'preact/hooks';
import type { HubSubDeviceReading } from '../../src/families/hub/domain/hub.types.js';
import { SensorBadge } from './sensor-badge.js';
import type { Device } from './types.js';

/** A device behind the hub, as GET /devices/:uuid/hub and hub events give it. */
export type SubDevice = HubSubDeviceReading;

const reading = (d: SubDevice) =>
  [
    d.temperature !== null ? `${d.temperature.toFixed(1)} °C` : null,
    d.humidity !== null ? `${d.humidity.toFixed(1)} %` : null,
    d.battery !== null ? `battery ${d.battery} %` : null,
  ]
    .filter(Boolean)
    .join(' · ');

/** GET /devices/:uuid/hub: the hub's devices with their readings (three cloud messages, cached a minute by the service). */
export async function readHub(client: ApiClient, uuid: string): Promise<{ subdevices: SubDevice[]; at: string }> {
  return (await client.json<{ subdevices: SubDevice[]; at: string }>('GET', `/devices/${encodeURIComponent(uuid)}/hub`)).body;
}

interface Props {
  client: ApiClient;
  device: Device;
  /** Why the caller may not set the valves, or null. */
  locked: string | null;
  /** What the service last told of the hub's devices (reads and pushes, from /events); undefined until read. */
  subdevices: SubDevice[] | undefined;
  onSubdevices(list: SubDevice[]): void;
}

/**
 * The valves and sensors behind a hub, read when asked (three cloud messages, cached a minute by the service); leak,
 * smoke and door sensors carry a badge that turns red on alarm, kept current by the hub events.
 */
export function HubPanel({ client, device, locked, subdevices, onSubdevices }: Props) {
  const lock = lockProps(locked);
  const [at, setAt] = useState<string | null>(null);
  const [problem, setProblem] = useState<ErrorBody | null>(null);
  const path = `/devices/${encodeURIComponent(device.uuid)}/hub`;

  const load = useCallback(async () => {
    try {
      const body = await readHub(client, device.uuid);
      onSubdevices(body.subdevices);
      setAt(body.at);
      setProblem(null);
    } catch (error) {
      setProblem(toErrorBody(error));
    }
  }, [client, device.uuid, onSubdevices]);

  const setValve = async (id: string, change: { on?: boolean; targetTemperature?: number }) => {
    try {
      await client.json('PUT', `${path}/${encodeURIComponent(id)}`, change);
      if (subdevices) onSubdevices(subdevices.map((d) => (d.id === id ? { ...d, ...change } : d)));
      setProblem(null);
    } catch (error) {
      setProblem(toErrorBody(error));
    }
  };

  return (
    <div class="hub">
      <p class="row">
        <button type="button" onClick={() => void load()} disabled={!device.online}>
          {subdevices ? 'Read again' : 'Read devices'}
        </button>
        {at ? <span class="muted">read {timeFromNow(at)}</span> : null}
      </p>
      {subdevices ? (
        <ul class="channels" aria-label={`Devices behind ${device.name}`}>
          {subdevices.map((d) => (
            <li key={d.id} class="subdevice">
              <div class="row">
                <span>
                  <strong>{d.name}</strong> <span class="muted">{d.online ? d.kind : `${d.kind}, offline`}</span>
                </span>
                <SensorBadge device={d} />
                {d.kind === 'valve' ? (
                  <button
                    type="button"
                    role="switch"
                    class="switch"
                    {...lock}
                    aria-checked={d.on === null ? 'mixed' : d.on}
                    aria-label={`${d.name}: heating`}
                    onClick={() => void setValve(d.id, { on: d.on !== true })}
                  />
                ) : null}
              </div>
              <span class="muted">{reading(d)}</span>
              {d.kind === 'valve' ? (
                <form
                  class="row"
                  onSubmit={(event) => {
                    event.preventDefault();
                    const input = (event.currentTarget as HTMLFormElement).elements.namedItem('target') as HTMLInputElement;
                    void setValve(d.id, { targetTemperature: Number(input.value) });
                  }}
                >
                  <label>
                    Target °C
                    <input
                      name="target"
                      type="number"
                      {...lock}
                      step={0.5}
                      min={d.minTemperature ?? 5}
                      max={d.maxTemperature ?? 35}
                      defaultValue={String(d.targetTemperature ?? 20)}
                      required
                    />
                  </label>
                  <button type="submit" {...lock} aria-label={`Set ${d.name} target`}>
                    Set
                  </button>
                </form>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      <ErrorNote problem={problem} />
    </div>
  );
}
