import { type ApiClient, type ErrorBody, ErrorNote, localTime, timeFromNow, toErrorBody } from '@homeops/web-kit';
import { useState } from 'preact/hooks';
import { CoverPanel } from './cover-panel.js';
import { EnergyPanel } from './energy-panel.js';
import { GarageDoorPanel } from './garage-door-panel.js';
import { HubPanel, type SubDevice } from './hub-panel.js';
import { LightPanel } from './light-panel.js';
import type { ControlFamily } from '../../src/http/control-families.js';
import type { ChannelState } from './device-list.js';
import type { ChannelResult, Cover, Device, GarageDoor, Light } from './types.js';

const STATUS_CLASS = { online: 'ok', offline: 'bad', upgrading: 'warn' } as const;
const TRANSPORT_CLASS = { lan: 'ok', cloud: 'warn', unreachable: 'bad' } as const;
const TRANSPORT_TEXT = { lan: 'LAN', cloud: 'cloud', unreachable: 'unreachable' } as const;

interface Props {
  client: ApiClient;
  device: Device;
  /** Why this caller may not send the device commands of a family (the token's scopes and limits), or null. */
  lockOf(family: ControlFamily): string | null;
  /** Why the caller may control no device at all, said once on the page rather than on every card; null if it may. */
  pageLock: string | null;
  doors: GarageDoor[] | undefined;
  onDoors(uuid: string, doors: GarageDoor[]): void;
  covers: Cover[] | undefined;
  onCovers(uuid: string, covers: Cover[]): void;
  lights: Light[] | undefined;
  onLights(uuid: string, lights: Light[]): void;
  subdevices: SubDevice[] | undefined;
  onSubdevices(uuid: string, list: SubDevice[]): void;
  /** Reload this device from the service (after a failed command: its true state). */
  onStale(uuid: string): Promise<void>;
  /** A channel's state as a switch command's answer told it. */
  onChannel(state: ChannelState): void;
  onChange(device: Device): void;
}

/** The command families this card offers controls for. */
function familiesOf(device: Device): ControlFamily[] {
  const main = (['garageDoor', 'hubSensors', 'cover'] as const).find((f) => device.capabilities.includes(f));
  const families: ControlFamily[] = main ? [main] : device.switchable ? ['switch'] : [];
  return device.capabilities.includes('light') ? [...families, 'light'] : families;
}

/** One device: its state, a switch per channel, and why the last command failed. */
export function DeviceCard({
  client,
  device,
  lockOf,
  pageLock,
  doors,
  onDoors,
  covers,
  onCovers,
  lights,
  onLights,
  subdevices,
  onSubdevices,
  onStale,
  onChannel,
  onChange,
}: Props) {
  const [problem, setProblem] = useState<ErrorBody | null>(null);
  const [busy, setBusy] = useState<number | null>(null);
  const headingId = `device-${device.uuid}`;
  const switchLock = lockOf('switch');
  // Why a control of this card is disabled, once each, unless the page says it for every device.
  const reasons = [...new Set(familiesOf(device).map(lockOf))].filter((r): r is string => r !== null && r !== pageLock);

  const flip = async (channel: number, on: boolean) => {
    setBusy(channel);
    // Shown at once; the device's answer (or, on failure, the service's state) is the truth.
    onChange({ ...device, channels: device.channels.map((c) => (c.channel === channel ? { ...c, on } : c)) });
    try {
      const { body } = await client.json<ChannelResult>('PUT', `/devices/${encodeURIComponent(device.uuid)}/channels/${channel}`, { on });
      onChannel({ uuid: device.uuid, channel, on: body.on });
      setProblem(null);
    } catch (error) {
      setProblem(toErrorBody(error));
      await onStale(device.uuid);
    } finally {
      setBusy(null);
    }
  };

  return (
    <article class="card device" aria-labelledby={headingId} data-uuid={device.uuid}>
      <div class="row">
        <h2 id={headingId}>{device.name}</h2>
        <span class={`badge ${STATUS_CLASS[device.status]}`}>{device.status}</span>
      </div>
      <p class="muted">
        {device.type} · <span title={localTime(device.lastSeenAt)}>seen {timeFromNow(device.lastSeenAt)}</span>
      </p>
      <p class="muted transport" title={device.lanProblem ?? undefined}>
        via <span class={`badge ${TRANSPORT_CLASS[device.transport]}`}>{TRANSPORT_TEXT[device.transport]}</span>
        {device.address ? <span class="address"> {device.address}</span> : null}
        {device.lanProblem ? <span class="lan-problem"> · {device.lanProblem}</span> : null}
      </p>
      {device.capabilities.includes('garageDoor') ? (
        <GarageDoorPanel client={client} device={device} locked={lockOf('garageDoor')} doors={doors} onDoors={(d) => onDoors(device.uuid, d)} />
      ) : device.capabilities.includes('hubSensors') ? (
        <HubPanel client={client} device={device} locked={lockOf('hubSensors')} subdevices={subdevices} onSubdevices={(l) => onSubdevices(device.uuid, l)} />
      ) : device.capabilities.includes('cover') ? (
        <CoverPanel client={client} device={device} locked={lockOf('cover')} covers={covers} onCovers={(c) => onCovers(device.uuid, c)} />
      ) : device.switchable ? (
        <ul class="channels">
          {device.channels.map((c) => (
            <li key={c.channel} class="row">
              <span>{c.name}</span>
              <button
                type="button"
                role="switch"
                class="switch"
                aria-checked={c.on === null ? 'mixed' : c.on}
                aria-label={`${device.name}: ${c.name}`}
                aria-busy={busy === c.channel}
                disabled={busy !== null || switchLock !== null}
                data-locked={switchLock !== null || undefined}
                title={switchLock ?? (c.on === null ? 'State unknown' : c.on ? 'On' : 'Off')}
                onClick={() => void flip(c.channel, c.on !== true)}
              />
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">No switch on this device ({device.capabilities.join(', ') || 'nothing it can do is known yet'}).</p>
      )}
      {device.capabilities.includes('energy') ? <EnergyPanel client={client} device={device} /> : null}
      {device.capabilities.includes('light') ? (
        <LightPanel client={client} device={device} locked={lockOf('light')} lights={lights} onLights={(l) => onLights(device.uuid, l)} />
      ) : null}
      {device.switchable && !device.controllable ? (
        <p class="muted">Not controllable right now ({device.commandReady ? device.status : 'command channel not connected'}).</p>
      ) : null}
      {reasons.map((reason) => (
        <p key={reason} class="lock-note muted">
          {reason}
        </p>
      ))}
      <ErrorNote problem={problem} />
    </article>
  );
}
