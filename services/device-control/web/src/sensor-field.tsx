import { type ApiClient, ChoiceOptions, type ErrorBody, ErrorNote, toErrorBody } from '@homeops/web-kit';
import { useEffect, useState } from 'preact/hooks';
import { readHub, type SubDevice } from './hub-panel.js';
import type { KindSpec } from './watch-kinds.js';
import type { Device } from './types.js';

interface Props {
  client: ApiClient;
  hub: Device;
  sensors: NonNullable<KindSpec['sensors']>;
  /** The hub's devices as the page last read them (its card, its events); undefined until read. */
  subdevices: SubDevice[] | undefined;
  onSubdevices(uuid: string, list: SubDevice[]): void;
}

/**
 * The Sensor select of a hub condition: the hub's devices of the condition's kind, by name with the id as value. A hub
 * the page has not read yet is read once here, through the route its card uses.
 */
export function SensorField({ client, hub, sensors, subdevices, onSubdevices }: Props) {
  const [problem, setProblem] = useState<ErrorBody | null>(null);
  const unread = subdevices === undefined;
  useEffect(() => {
    if (!unread) return;
    let current = true;
    readHub(client, hub.uuid).then(
      (body) => current && onSubdevices(hub.uuid, body.subdevices),
      (error: unknown) => current && setProblem(toErrorBody(error)),
    );
    return () => {
      current = false;
    };
  }, [client, hub.uuid, unread, onSubdevices]);
  const fitting = subdevices?.filter(sensors.fits) ?? [];
  const empty = unread ? (problem ? `${hub.name} could not be read` : `Reading ${hub.name}…`) : `No ${sensors.noun} behind ${hub.name}`;

  return (
    <>
      <label>
        Sensor
        <select name="sensor" required>
          {fitting.length === 0 ? <option value="">{empty}</option> : null}
          <ChoiceOptions choices={fitting.map((d) => [d.id, d.name] as const)} />
        </select>
      </label>
      <ErrorNote problem={problem} />
    </>
  );
}

/** Whether there is a sensor to name: the hub is read and has one that fits the condition. */
export const hasSensor = (sensors: NonNullable<KindSpec['sensors']>, subdevices: SubDevice[] | undefined): boolean => subdevices?.some(sensors.fits) ?? false;
