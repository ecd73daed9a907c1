import { MQTT_OFF, type MqttStatus } from '@homeops/common/mqtt';
import { type Api, registerHealthRoute } from '@homeops/common';
import type { EventStreams } from './event-streams.js';
import type { CloudStatus, DeviceCloud } from '../domain/device-cloud.js';
import type { DeviceService } from '../domain/device.service.js';
import { SERVICE_NAME, SERVICE_VERSION } from '../version.js';
import type { DeviceFamily } from '../families/device-family.js';
import { healthDetails } from './health.schemas.js';

/** What /health reads from. */
export interface HealthDeps {
  cloud: DeviceCloud;
  devices: DeviceService;
  streams: EventStreams;
  startedAt: number;
  now: () => number;
  /** ALLOW_OPEN_LAN took effect: listening beyond loopback without a key. */
  openLan?: boolean;
  /** The MQTT bridge to Home Assistant; `off` when MQTT_URL is unset. */
  mqtt?: () => MqttStatus;
  /** The device families: their counts in `devices`, and the problems those tell. */
  families: readonly DeviceFamily[];
}

/** Only a person can bring these back: 503, so a monitor alerts. */
const NEEDS_A_PERSON = new Set(['failed', 'needs-mfa']);

/**
 * Why the service is degraded: each problem in a sentence, empty when all is well. A cloud session that is down
 * while every device answers over the LAN degrades nothing the house needs (pushes come by polling then); one that
 * waits for a person always counts.
 */
function findProblems(cloud: CloudStatus, health: ReturnType<DeviceService['health']>, families: readonly DeviceFamily[]): string[] {
  const problems: string[] = [];
  const { lan } = health;
  const lanServesAll = lan.enabled && lan.total > 0 && lan.lan === lan.total;
  const cloudMatters = !lanServesAll || NEEDS_A_PERSON.has(cloud.state);
  if (cloud.state !== 'connected' && cloudMatters) problems.push(`the cloud session is ${cloud.state}${cloud.action ? `: ${cloud.action}` : ''}`);
  if (health.sync.ok !== true && cloudMatters) problems.push(health.sync.ok === false ? `the last sync failed: ${health.sync.error}` : 'no sync yet');
  for (const family of families) problems.push(...(family.health?.problems(health.devices) ?? []));
  if (lan.enabled && lan.unreachable > 0) problems.push(`${lan.unreachable} device(s) answer neither over the LAN nor through the cloud`);
  for (const { name, problem } of lan.problems) problems.push(`${name}: ${problem}`);
  if (cloud.tokenStore.writable === false) {
    problems.push(
      `the session token cannot be saved to ${cloud.tokenStore.file} (${cloud.tokenStore.error}); every restart logs in again, which can lock the account`,
    );
  }
  return problems;
}

/**
 * GET /health: 200 while serving, 503 while the session waits for a person (refused credentials, an MFA code). Degraded when the session is not up, the last
 * sync failed, a device family tells a problem of its devices (command channels down in a broker outage), or the
 * session token cannot be saved.
 */
export function registerHealthRoutes(api: Api, deps: HealthDeps): void {
  registerHealthRoute(api, {
    service: SERVICE_NAME,
    version: SERVICE_VERSION,
    schemaName: 'DeviceControlHealth',
    summary: 'Service, cloud session, sync and device status',
    serving: 'Serving',
    failing: 'The cloud session waits for a person: fix the credentials, or send an MFA code',
    // The families' counts are typed by FamilyDeviceCounts (HealthBody), their schema is theirs.
    details: healthDetails<Record<never, never>>(Object.assign({}, ...deps.families.map((f) => f.health?.counts))),
    startedAt: deps.startedAt,
    now: deps.now,
    openLan: deps.openLan ?? false,
    assess: () => {
      const cloud = deps.cloud.status();
      const { backend, state, lastError, retryAt, action, tokenStore } = cloud;
      const health = deps.devices.health();
      const mqtt = deps.mqtt?.() ?? MQTT_OFF;
      const problems = findProblems(cloud, health, deps.families);
      if (mqtt.state === 'disconnected') problems.push(`the MQTT broker ${mqtt.broker ?? ''} cannot be reached: ${mqtt.lastError ?? 'no answer'}`);
      return {
        error: NEEDS_A_PERSON.has(state),
        problems,
        details: {
          backend,
          cloud: { state, lastError, retryAt, action, tokenStore },
          sync: health.sync,
          devices: health.devices,
          budget: health.budget,
          lan: health.lan,
          commands: health.commands,
          eventStreams: deps.streams.size,
          mqtt,
        },
      };
    },
  });
}
