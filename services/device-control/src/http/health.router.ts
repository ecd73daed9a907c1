import { type Api, type EventStreamHub, registerHealthRoute, z } from '@homeops/common';
import type { CloudStatus, DeviceCloud } from '../domain/device-cloud.js';
import type { DeviceService } from '../domain/device.service.js';
import { SERVICE_NAME, SERVICE_VERSION } from '../version.js';

/** What /health tells beside the envelope. */
const HealthDetails = {
  backend: z.enum(['meross', 'simulator']),
  cloud: z.object({
    state: z.enum(['connecting', 'connected', 'backing-off', 'locked-out', 'needs-mfa', 'failed']),
    lastError: z.object({ code: z.union([z.string(), z.number()]).nullable(), message: z.string(), at: z.string() }).nullable(),
    retryAt: z.string().nullable(),
    action: z.string().nullable().openapi({ description: 'What you must do (or until when to wait); null while all is well' }),
    tokenStore: z
      .object({ file: z.string().nullable(), writable: z.boolean().nullable(), error: z.string().nullable(), savedAt: z.string().nullable() })
      .openapi({ description: 'Whether the session token survives a restart; writable null where no token is kept' }),
  }),
  sync: z.object({
    lastAt: z.string().nullable(),
    ok: z.boolean().nullable(),
    error: z.string().nullable(),
    lastSuccessAt: z.string().nullable(),
    lastResult: z.object({ total: z.number(), added: z.number(), removed: z.number(), updated: z.number() }).nullable(),
    intervalSeconds: z.number(),
    source: z
      .enum(['cloud', 'stored'])
      .nullable()
      .openapi({ description: 'Where the device list came from: the cloud, or the list kept from an earlier run while the cloud cannot be reached' }),
  }),
  devices: z.object({
    total: z.number(),
    online: z.number(),
    controllable: z.number(),
    awaitingCommandChannel: z.number().openapi({ description: 'Online switches whose command channel is down' }),
  }),
  budget: z
    .object({
      windows: z.array(
        z.object({
          window: z.enum(['hour', 'burst']),
          seconds: z.number(),
          limit: z.number(),
          used: z.number().openapi({ description: 'Messages sent in the window, plus calls admitted and still running' }),
          remaining: z.number(),
          reservedForCallers: z.number().openapi({ description: 'The last share of the window background work never spends' }),
        }),
      ),
      sent: z
        .object({ api: z.number(), mqtt: z.number(), lan: z.number() })
        .openapi({ description: 'Messages sent since the start: api and mqtt reached the cloud and count; lan went to devices directly and do not' }),
    })
    .openapi({ description: 'The account-wide cloud message budget (every HTTP API call and MQTT request counts)' }),
  lan: z
    .object({
      enabled: z.boolean(),
      summary: z.string().openapi({ description: 'Devices reached over the LAN, e.g. "7 of 8 devices", or "off"' }),
      total: z.number(),
      lan: z.number(),
      cloud: z.number(),
      unreachable: z.number(),
      problems: z.array(z.object({ uuid: z.string(), name: z.string(), problem: z.string() })),
    })
    .openapi({ description: 'How devices are reached, apart from the cloud session: over the LAN, through the cloud, or neither' }),
  commands: z.object({ limitPerMinute: z.number(), usedLastMinute: z.number() }).openapi({ description: 'The burst window under its 1.0 name' }),
  eventStreams: z.number(),
};

/** What /health reads from. */
export interface HealthDeps {
  cloud: DeviceCloud;
  devices: DeviceService;
  hub: EventStreamHub;
  startedAt: number;
  now: () => number;
  /** ALLOW_OPEN_LAN took effect: listening beyond loopback without a key. */
  openLan?: boolean;
}

/** Only a person can bring these back: 503, so a monitor alerts. */
const NEEDS_A_PERSON = new Set(['failed', 'needs-mfa']);

/**
 * Why the service is degraded: each problem in a sentence, empty when all is well. A cloud session that is down
 * while every device answers over the LAN degrades nothing the house needs (pushes come by polling then); one that
 * waits for a person always counts.
 */
function findProblems(cloud: CloudStatus, health: ReturnType<DeviceService['health']>): string[] {
  const problems: string[] = [];
  const { lan } = health;
  const lanServesAll = lan.enabled && lan.total > 0 && lan.lan === lan.total;
  const cloudMatters = !lanServesAll || NEEDS_A_PERSON.has(cloud.state);
  if (cloud.state !== 'connected' && cloudMatters) problems.push(`the cloud session is ${cloud.state}${cloud.action ? `: ${cloud.action}` : ''}`);
  if (health.sync.ok !== true && cloudMatters) problems.push(health.sync.ok === false ? `the last sync failed: ${health.sync.error}` : 'no sync yet');
  if (health.devices.awaitingCommandChannel > 0) {
    problems.push(`${health.devices.awaitingCommandChannel} online switch(es) cannot be reached over their command channel`);
  }
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
 * sync failed, online switches cannot be reached over their command channel (a broker outage), or the session token
 * cannot be saved.
 */
export function registerHealthRoutes(api: Api, deps: HealthDeps): void {
  registerHealthRoute(api, {
    service: SERVICE_NAME,
    version: SERVICE_VERSION,
    schemaName: 'DeviceControlHealth',
    summary: 'Service, cloud session, sync and device status',
    serving: 'Serving',
    failing: 'The cloud session waits for a person: fix the credentials, or send an MFA code',
    details: HealthDetails,
    startedAt: deps.startedAt,
    now: deps.now,
    openLan: deps.openLan ?? false,
    assess: () => {
      const cloud = deps.cloud.status();
      const { backend, state, lastError, retryAt, action, tokenStore } = cloud;
      const health = deps.devices.health();
      return {
        error: NEEDS_A_PERSON.has(state),
        problems: findProblems(cloud, health),
        details: {
          backend,
          cloud: { state, lastError, retryAt, action, tokenStore },
          sync: health.sync,
          devices: health.devices,
          budget: health.budget,
          lan: health.lan,
          commands: health.commands,
          eventStreams: deps.hub.size,
        },
      };
    },
  });
}
