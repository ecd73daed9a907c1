import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../packages/test-kit/src/index.js';
import { composeProject } from './compose-project.js';
import { docker, mainProcessPrivileges, waitHealthy } from './docker-cli.js';

const root = resolve(import.meta.dirname, '../..');
// A fresh host: an empty project folder; the broker's config comes from the repository, as `./docker/...` would.
const project = composeProject(join(root, 'docker-compose.yml'), 'homeops-compose-mqtt-', ['mqtt']);
const { compose, run, network, containers } = project;

/**
 * `mosquitto_sub` inside the broker's container: the retained messages on `topic`, as `topic payload` lines; it ends
 * after `count` messages, or after `waitSeconds` with what arrived by then (-W exits with status 27).
 */
async function retained(topic: string, waitSeconds: number, count?: number): Promise<string[]> {
  const limit = count === undefined ? '' : `-C ${count}`;
  const out = await docker(['exec', containers.mosquitto!, 'sh', '-c', `mosquitto_sub -h 127.0.0.1 -t '${topic}' -v ${limit} -W ${waitSeconds} || true`]);
  return out.split('\n').filter(Boolean);
}

beforeAll(async () => {
  expect(Object.keys(compose.services).sort()).toEqual(['device-control', 'mosquitto', 'notifications']);
  await docker(['network', 'create', network]);
  for (const service of ['mosquitto', 'device-control']) await docker(compose.buildArgs(service), 900_000);
  const config = join(root, 'docker/mosquitto/mosquitto.conf');
  containers.mosquitto = `${compose.project}-mosquitto-${run}`;
  await docker(compose.runArgs('mosquitto', containers.mosquitto, () => 0, { network, volumes: { '/mosquitto/config/mosquitto.conf': config } }));
  await waitHealthy(containers.mosquitto, 60_000);
  containers['device-control'] = `${compose.project}-device-control-${run}`;
  const port = await freePort();
  // MQTT_URL as .env would set it for the profile (docs/docker.md); the simulator, since .env has no account.
  await docker(compose.runArgs('device-control', containers['device-control'], () => port, { network, environment: { MQTT_URL: 'mqtt://mosquitto:1883' } }));
  await waitHealthy(containers['device-control'], 120_000);
}, 1_800_000);

afterAll(() => project.remove(), 120_000);

describe.sequential('docker-compose.yml --profile mqtt on a real Docker engine', () => {
  it('starts Mosquitto healthy, as its own unprivileged user, with no port published on the host', async () => {
    const privileges = await mainProcessPrivileges(containers.mosquitto!);
    expect(privileges.uid).not.toBe(0);
    expect(privileges.noNewPrivs).toBe(1);
    expect(privileges.capEff).toBe('0000000000000000');
    expect(await docker(['port', containers.mosquitto!])).toBe('');
  });

  it('has device-control (simulator) publish its availability and Home Assistant discovery to it', async () => {
    const availability = await retained('homeops/device-control/availability', 30, 1);
    const discovery = await retained('homeassistant/device/+/config', 5);
    const configs = discovery.map((line) => JSON.parse(line.slice(line.indexOf(' ') + 1)) as { dev: { name: string }; cmps: Record<string, { p: string }> });

    expect(availability).toEqual(['homeops/device-control/availability online']);
    expect(discovery.length).toBeGreaterThanOrEqual(7);
    expect(discovery.every((line) => /^homeassistant\/device\/homeops_device_control\w*\/config \{/.test(line))).toBe(true);
    expect(configs.flatMap((config) => Object.values(config.cmps).map((component) => component.p))).toContain('switch');
  });
});
