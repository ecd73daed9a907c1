import { type ApiClient, type ErrorBody, ErrorNote, timeFromNow, toErrorBody } from '@homeops/web-kit';
import { useCallback, useState } from 'preact/hooks';
import type { DailyEnergy, Device, Power } from './types.js';

/**
 * An energy plug's power now and its last days, read when asked: each read costs cloud messages from the account's
 * budget (the service caches them), so opening the page costs none.
 */
export function EnergyPanel({ client, device }: { client: ApiClient; device: Device }) {
  const [power, setPower] = useState<Power | null>(null);
  const [days, setDays] = useState<DailyEnergy['days']>([]);
  const [problem, setProblem] = useState<ErrorBody | null>(null);
  const path = `/devices/${encodeURIComponent(device.uuid)}/energy`;

  const load = useCallback(async () => {
    try {
      setPower((await client.json<Power>('GET', path)).body);
      setDays((await client.json<DailyEnergy>('GET', `${path}/daily`)).body.days.slice(-7));
      setProblem(null);
    } catch (error) {
      setProblem(toErrorBody(error));
    }
  }, [client, path]);

  const peak = Math.max(0.001, ...days.map((d) => d.kWh));
  return (
    <div class="energy">
      {power ? null : (
        <button type="button" onClick={() => void load()} disabled={!device.online}>
          Read power
        </button>
      )}
      {power ? (
        <p class="row">
          <span>
            <strong data-power={power.power}>{power.power.toFixed(1)} W</strong> · {power.voltage.toFixed(1)} V · {power.current.toFixed(2)} A{' '}
            <span class="muted">read {timeFromNow(power.at)}</span>
          </span>
          <button type="button" onClick={() => void load()} aria-label={`Refresh ${device.name} power`}>
            Refresh
          </button>
        </p>
      ) : null}
      {days.length > 0 ? (
        <ul class="days" aria-label={`${device.name}: energy per day`}>
          {days.map((d) => (
            <li key={d.date}>
              <span class="muted">{d.date.slice(5)}</span>
              <span class="bar" style={{ width: `${Math.round((d.kWh / peak) * 100)}%` }} />
              <span>{d.kWh.toFixed(2)} kWh</span>
            </li>
          ))}
        </ul>
      ) : null}
      <ErrorNote problem={problem} />
    </div>
  );
}
