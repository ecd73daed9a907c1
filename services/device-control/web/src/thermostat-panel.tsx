import { type ApiClient, type ErrorBody, ErrorNote, lockProps, toErrorBody } from '@homeops/web-kit';
import { useEffect, useState } from 'preact/hooks';
import type { ThermostatReading } from '../../src/families/thermostat/domain/thermostat.types.js';
import type { Device } from './types.js';

/** One thermostat channel, as GET /devices/:uuid/thermostat and thermostat events give it. */
export type Thermostat = ThermostatReading;

const degrees = (t: number | null) => (t === null ? '–' : `${t.toFixed(1)} °C`);

interface Props {
  client: ApiClient;
  device: Device;
  /** Why the caller may not change it, or null. */
  locked: string | null;
  thermostats: Thermostat[] | undefined;
  onThermostats(list: Thermostat[]): void;
}

/** A thermostat: the room, the target a half degree at a time, the mode; its pushes keep it current. */
export function ThermostatPanel({ client, device, locked, thermostats, onThermostats }: Props) {
  const lock = lockProps(locked);
  const [problem, setProblem] = useState<ErrorBody | null>(null);
  const path = `/devices/${encodeURIComponent(device.uuid)}/thermostat`;

  useEffect(() => {
    if (thermostats !== undefined || !device.online) return;
    client.json<{ thermostats: Thermostat[] }>('GET', path).then(
      ({ body }) => onThermostats(body.thermostats),
      (error: unknown) => setProblem(toErrorBody(error)),
    );
  }, [client, path, thermostats, device.online, onThermostats]);

  const change = async (channel: number, body: Partial<Pick<Thermostat, 'on' | 'mode' | 'targetTemperature'>>) => {
    try {
      const { body: answer } = await client.json<{ applied: Partial<Thermostat> }>('PUT', `${path}/${channel}`, body);
      onThermostats((thermostats ?? []).map((t) => (t.channel === channel ? { ...t, ...answer.applied } : t)));
      setProblem(null);
    } catch (error) {
      setProblem(toErrorBody(error));
    }
  };

  return (
    <div class="thermostats">
      {(thermostats ?? []).map((t) => (
        <div key={t.channel} class="thermostat" role="group" aria-label={`${device.name} thermostat`}>
          <p class="row">
            <span>Room {degrees(t.currentTemperature)}</span>
            <span class={`badge ${t.heating ? 'warn' : 'ok'}`}>{!t.on ? 'off' : t.heating ? 'heating' : t.cooling ? 'cooling' : 'idle'}</span>
          </p>
          <p class="row">
            <button
              type="button"
              {...lock}
              aria-label="Target down 0.5 °C"
              disabled={locked !== null || t.targetTemperature === null || t.targetTemperature - 0.5 < t.minTemperature}
              onClick={() => void change(t.channel, { targetTemperature: t.targetTemperature! - 0.5 })}
            >
              −
            </button>
            <span class="target">Target {degrees(t.targetTemperature)}</span>
            <button
              type="button"
              {...lock}
              aria-label="Target up 0.5 °C"
              disabled={locked !== null || t.targetTemperature === null || t.targetTemperature + 0.5 > t.maxTemperature}
              onClick={() => void change(t.channel, { targetTemperature: t.targetTemperature! + 0.5 })}
            >
              +
            </button>
          </p>
          <p class="row">
            <label>
              Mode{' '}
              <select {...lock} value={t.mode} onChange={(e) => void change(t.channel, { mode: e.currentTarget.value as Thermostat['mode'] })}>
                {t.modes.map((mode) => (
                  <option key={mode} value={mode}>
                    {mode}
                  </option>
                ))}
              </select>
            </label>
            <button type="button" {...lock} onClick={() => void change(t.channel, { on: !t.on })}>
              {t.on ? 'Turn off' : 'Turn on'}
            </button>
          </p>
        </div>
      ))}
      <ErrorNote problem={problem} />
    </div>
  );
}
