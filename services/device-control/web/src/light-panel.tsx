import { type ApiClient, type ErrorBody, ErrorNote, lockProps, toErrorBody } from '@homeops/web-kit';
import { useEffect, useState } from 'preact/hooks';
import type { Device, Light } from './types.js';

interface Props {
  client: ApiClient;
  device: Device;
  /** Why the caller may not set it, or null. */
  locked: string | null;
  lights: Light[] | undefined;
  onLights(lights: Light[]): void;
}

/** A light's brightness, colour temperature and colour, where it has them (on/off is its channel switch). */
export function LightPanel({ client, device, locked, lights, onLights }: Props) {
  const [problem, setProblem] = useState<ErrorBody | null>(null);
  const path = `/devices/${encodeURIComponent(device.uuid)}/light`;

  useEffect(() => {
    if (lights !== undefined || !device.online) return;
    client.json<{ lights: Light[] }>('GET', path).then(
      ({ body }) => onLights(body.lights),
      (error: unknown) => setProblem(toErrorBody(error)),
    );
  }, [client, path, lights, device.online, onLights]);

  return (
    <div class="lights">
      {(lights ?? []).map((light) => (
        <LightForm
          key={light.channel}
          device={device}
          locked={locked}
          light={light}
          onApply={async (change) => {
            try {
              await client.json('PUT', `${path}/${light.channel}`, change);
              onLights((lights ?? []).map((l) => (l.channel === light.channel ? { ...l, ...change } : l)));
              setProblem(null);
            } catch (error) {
              setProblem(toErrorBody(error));
            }
          }}
        />
      ))}
      <ErrorNote problem={problem} />
    </div>
  );
}

function LightForm({
  device,
  locked,
  light,
  onApply,
}: {
  device: Device;
  locked: string | null;
  light: Light;
  onApply(change: Record<string, number | string>): Promise<void>;
}) {
  const lock = lockProps(locked);
  const [brightness, setBrightness] = useState(light.brightness ?? 50);
  const [temperature, setTemperature] = useState(light.temperature ?? 50);
  const [rgb, setRgb] = useState(typeof light.rgb === 'string' ? light.rgb : '#ffffff');
  useEffect(() => {
    if (light.brightness !== null) setBrightness(light.brightness);
    if (light.temperature !== null) setTemperature(light.temperature);
    if (typeof light.rgb === 'string') setRgb(light.rgb);
  }, [light.brightness, light.temperature, light.rgb]);
  const { supports } = light;
  return (
    <form
      class="light"
      aria-label={`${device.name} light`}
      onSubmit={(event) => {
        event.preventDefault();
        const change: Record<string, number | string> = {};
        if (supports.brightness) change.brightness = brightness;
        if (supports.temperature) change.temperature = temperature;
        if (supports.rgb) change.rgb = rgb;
        void onApply(change);
      }}
    >
      {supports.brightness ? (
        <label>
          Brightness {brightness}%
          <input type="range" {...lock} min={1} max={100} value={brightness} onInput={(e) => setBrightness(Number(e.currentTarget.value))} />
        </label>
      ) : null}
      {supports.temperature ? (
        <label>
          Colour temperature {temperature} (warm … cold)
          <input type="range" {...lock} min={1} max={100} value={temperature} onInput={(e) => setTemperature(Number(e.currentTarget.value))} />
        </label>
      ) : null}
      {supports.rgb ? (
        <label class="row">
          Colour
          <input type="color" {...lock} value={rgb} onInput={(e) => setRgb(e.currentTarget.value)} />
        </label>
      ) : null}
      <button type="submit" {...lock}>
        Apply
      </button>
    </form>
  );
}
