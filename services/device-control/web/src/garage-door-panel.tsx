import { type ApiClient, type ErrorBody, ErrorNote, lockProps, toErrorBody } from '@homeops/web-kit';
import { useEffect, useState } from 'preact/hooks';
import type { Device, GarageDoor, GarageDoorResult } from './types.js';

const STATE_TEXT = { open: 'Open', closed: 'Closed', opening: 'Opening…', closing: 'Closing…' } as const;

interface Props {
  client: ApiClient;
  device: Device;
  /** Why the caller may not open or close it, or null. */
  locked: string | null;
  /** What the service last said of each door; undefined until loaded. */
  doors: GarageDoor[] | undefined;
  onDoors(doors: GarageDoor[]): void;
}

/** A garage door opener: each door's state, and Open / Close (never a switch). */
export function GarageDoorPanel({ client, device, locked, doors, onDoors }: Props) {
  const lock = lockProps(locked);
  const [problem, setProblem] = useState<ErrorBody | null>(null);
  const [busy, setBusy] = useState(false);
  const path = `/devices/${encodeURIComponent(device.uuid)}/garage-door`;

  useEffect(() => {
    if (doors !== undefined || !device.online) return;
    client.json<{ doors: GarageDoor[] }>('GET', path).then(
      ({ body }) => onDoors(body.doors),
      (error: unknown) => setProblem(toErrorBody(error)),
    );
  }, [client, path, doors, device.online, onDoors]);

  const move = async (channel: number, action: 'open' | 'close') => {
    setBusy(true);
    try {
      const { body } = await client.json<GarageDoorResult>('POST', `${path}/${channel}/${action}`);
      onDoors((doors ?? []).map((d) => (d.channel === channel ? { ...d, state: body.state } : d)));
      setProblem(null);
    } catch (error) {
      setProblem(toErrorBody(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="garage-doors">
      <ul class="channels">
        {(doors ?? []).map((door) => (
          <li key={door.channel} class="row">
            <span>
              {doors && doors.length > 1 ? `Door ${door.channel}: ` : 'Door: '}
              <strong data-door-state={door.state ?? 'unknown'}>{door.state ? STATE_TEXT[door.state] : 'unknown'}</strong>
            </span>
            <span class="actions">
              <button
                type="button"
                {...lock}
                disabled={busy || lock.disabled}
                onClick={() => void move(door.channel, 'open')}
                aria-label={`Open ${device.name}${door.channel ? ` door ${door.channel}` : ''}`}
              >
                Open
              </button>
              <button
                type="button"
                {...lock}
                disabled={busy || lock.disabled}
                onClick={() => void move(door.channel, 'close')}
                aria-label={`Close ${device.name}${door.channel ? ` door ${door.channel}` : ''}`}
              >
                Close
              </button>
            </span>
          </li>
        ))}
      </ul>
      <ErrorNote problem={problem} />
    </div>
  );
}
