import type { HubSubDeviceReading } from '../../src/families/hub/domain/hub.types.js';

type Tone = 'ok' | 'warn' | 'bad';

/** A safety sensor's state in words and tone: red (`bad`) on alarm — water, smoke or heat, an open door — amber for a muted alarm, a test or a fault. */
export function sensorState(d: HubSubDeviceReading): { text: string; tone: Tone } | null {
  if (d.kind === 'leak') return d.leak === null ? null : d.leak ? { text: 'water!', tone: 'bad' } : { text: 'dry', tone: 'ok' };
  if (d.kind === 'contact') return d.open === null ? null : d.open ? { text: 'open', tone: 'bad' } : { text: 'closed', tone: 'ok' };
  if (d.kind !== 'smoke' || d.smoke === null) return null;
  const smoke = {
    clear: ['clear', 'ok'],
    alarm: ['smoke or heat!', 'bad'],
    muted: ['alarm muted', 'warn'],
    test: ['test', 'warn'],
    fault: ['fault', 'warn'],
  } as const;
  const [text, tone] = smoke[d.smoke];
  return { text, tone };
}

/** The badge beside a leak, smoke or door/window sensor; nothing for other devices. */
export function SensorBadge({ device }: { device: HubSubDeviceReading }) {
  const state = sensorState(device);
  if (!state) return null;
  return (
    <span class={`badge ${state.tone}`} data-sensor-state={state.tone === 'bad' ? 'alarm' : state.tone} aria-label={`${device.name}: ${state.text}`}>
      {state.text}
    </span>
  );
}
