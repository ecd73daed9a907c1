import { type ApiClient, type ErrorBody, ErrorNote, lockProps, toErrorBody } from '@homeops/web-kit';
import { useEffect, useState } from 'preact/hooks';
import type { Cover, CoverResult, Device } from './types.js';

function describe(cover: Cover): string {
  if (cover.motion === 'opening') return 'Opening…';
  if (cover.motion === 'closing') return 'Closing…';
  if (cover.position === null) return 'unknown';
  return cover.position === 0 ? 'Closed' : cover.position === 100 ? 'Open' : `${cover.position}% open`;
}

interface Props {
  client: ApiClient;
  device: Device;
  /** Why the caller may not move it, or null. */
  locked: string | null;
  covers: Cover[] | undefined;
  onCovers(covers: Cover[]): void;
}

/** A cover: where it is and whether it moves; open, stop, close, and a position where the cover takes one. */
export function CoverPanel({ client, device, locked, covers, onCovers }: Props) {
  const lock = lockProps(locked);
  const [problem, setProblem] = useState<ErrorBody | null>(null);
  const [target, setTarget] = useState(50);
  const path = `/devices/${encodeURIComponent(device.uuid)}/cover`;

  useEffect(() => {
    if (covers !== undefined || !device.online) return;
    client.json<{ covers: Cover[] }>('GET', path).then(
      ({ body }) => onCovers(body.covers),
      (error: unknown) => setProblem(toErrorBody(error)),
    );
  }, [client, path, covers, device.online, onCovers]);

  const send = async (channel: number, method: 'POST' | 'PUT', action: string, body?: unknown) => {
    try {
      const { body: result } = await client.json<CoverResult>(method, `${path}/${channel}/${action}`, body);
      onCovers((covers ?? []).map((c) => (c.channel === channel ? { ...c, motion: result.motion } : c)));
      setProblem(null);
    } catch (error) {
      setProblem(toErrorBody(error));
    }
  };

  return (
    <div class="covers">
      <ul class="channels">
        {(covers ?? []).map((cover) => (
          <li key={cover.channel} class="cover">
            <div class="row">
              <span>
                Position:{' '}
                <strong data-cover-state={cover.motion === 'idle' || cover.motion === null ? String(cover.position) : cover.motion}>{describe(cover)}</strong>
              </span>
              <span class="actions">
                <button type="button" {...lock} onClick={() => void send(cover.channel, 'POST', 'open')} aria-label={`Open ${device.name}`}>
                  Open
                </button>
                <button type="button" {...lock} onClick={() => void send(cover.channel, 'POST', 'stop')} aria-label={`Stop ${device.name}`}>
                  Stop
                </button>
                <button type="button" {...lock} onClick={() => void send(cover.channel, 'POST', 'close')} aria-label={`Close ${device.name}`}>
                  Close
                </button>
              </span>
            </div>
            {device.coverPositioning ? (
              <form
                class="row"
                onSubmit={(event) => {
                  event.preventDefault();
                  void send(cover.channel, 'PUT', 'position', { position: target });
                }}
              >
                <label class="position">
                  Move to {target}%
                  <input type="range" {...lock} min={0} max={100} step={1} value={target} onInput={(e) => setTarget(Number(e.currentTarget.value))} />
                </label>
                <button type="submit" {...lock} aria-label={`Move ${device.name} to ${target}%`}>
                  Move
                </button>
              </form>
            ) : null}
          </li>
        ))}
      </ul>
      <ErrorNote problem={problem} />
    </div>
  );
}
