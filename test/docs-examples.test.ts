import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routesFromOpenApi, ServiceProcess, type DocumentedRoute } from '../packages/test-kit/src/index.js';
import { deviceTopics } from '../services/device-control/src/adapters/mqtt/device-entities.js';
import { ConfigSchema as DeviceControlConfig } from '../services/device-control/src/config.js';
import { recipientEntities } from '../services/notifications/src/adapters/mqtt/recipient-entities.js';
import { ConfigSchema as NotificationsConfig } from '../services/notifications/src/config.js';

/** The node fields the checks below read (Node-RED keeps many more). */
interface FlowNode {
  id: string;
  type: string;
  z?: string;
  topic?: string;
  broker?: string;
  method?: string;
  url?: string;
  func?: string;
  wires?: string[][];
}

const flow = JSON.parse(readFileSync(join(import.meta.dirname, '../docs/node-red/homeops-flow.json'), 'utf8')) as FlowNode[];
const byId = new Map(flow.map((node) => [node.id, node]));
const CONFIG_TYPES = ['tab', 'mqtt-broker'];

/** The routes of a service's `/openapi.json` (public), read from the service started as `pnpm start` runs it. */
async function documentedRoutes(service: ServiceProcess): Promise<DocumentedRoute[]> {
  const res = await fetch(`${service.baseUrl}/openapi.json`);
  return routesFromOpenApi((await res.json()) as Parameters<typeof routesFromOpenApi>[0]);
}

/** `POST http://host:port/devices/{{{uuid}}}/toggle` as the OpenAPI document writes it: `/devices/{uuid}/toggle`. */
function openApiPathOf(url: string): string {
  return new URL(url.replace(/\{\{\{(\w+)\}\}\}/g, '_$1_')).pathname.replace(/_(\w+)_/g, '{$1}');
}

describe('docs/node-red/homeops-flow.json', () => {
  it('is a flow of nodes with unique ids, each on the tab or a config node', () => {
    expect(byId.size).toBe(flow.length);
    const tabs = flow.filter((node) => node.type === 'tab').map((node) => node.id);
    expect(tabs).toHaveLength(1);
    for (const node of flow) {
      expect(node.id, JSON.stringify(node)).toMatch(/^\S+$/);
      expect(node.type, node.id).toMatch(/^\S/);
      if (CONFIG_TYPES.includes(node.type)) expect(node.z, node.id).toBeUndefined();
      else expect(tabs, node.id).toContain(node.z);
    }
  });

  it('wires only to nodes of the flow, and every MQTT node to its broker', () => {
    for (const node of flow) {
      for (const target of (node.wires ?? []).flat()) expect(byId.get(target)?.z, `${node.id} → ${target}`).toBe(node.z);
      if (node.type.startsWith('mqtt ')) expect(byId.get(node.broker ?? '')?.type, node.id).toBe('mqtt-broker');
    }
    expect(flow.filter((node) => node.type === 'function').length).toBeGreaterThan(0);
  });

  it('subscribes and publishes on the topics the bridges use, under their default base topics', () => {
    const plug = deviceTopics(DeviceControlConfig.parse({}).MQTT_BASE_TOPIC, 'sim-plug-0001');
    const lamp = deviceTopics(DeviceControlConfig.parse({}).MQTT_BASE_TOPIC, 'sim-bulb-0001');
    const [alice] = recipientEntities(NotificationsConfig.parse({}).MQTT_BASE_TOPIC, ['alice']);
    const topics = (type: string) => flow.filter((node) => node.type === type).map((node) => node.topic);
    expect(topics('mqtt in').sort()).toEqual([plug.channelState(0), alice!.topics.alarm].sort());
    expect(topics('mqtt out').sort()).toEqual([lamp.channelSet(0), alice!.topics.notify].sort());
  });

  it('reaches the broker named by settings, and notifies on a change of state only', () => {
    const broker = flow.find((node) => node.type === 'mqtt-broker') as FlowNode & { port?: string };
    expect([broker.broker, broker.port]).toEqual(['${HOMEOPS_MQTT_HOST}', '${HOMEOPS_MQTT_PORT}']);
    const state = flow.find((node) => node.type === 'mqtt in' && node.topic?.endsWith('/channels/0/state'))!;
    const filter = byId.get(state.wires?.[0]?.[0] ?? '') as FlowNode & { func?: string };
    expect([filter.type, filter.func]).toEqual(['rbe', 'rbei']);
  });

  it('calls documented routes with the X-API-Key header from the environment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'docs-examples-'));
    const services = await Promise.all([
      ServiceProcess.start({ service: 'device-control', env: { CLOUD_BACKEND: 'simulator', CLOUD_TOKEN_FILE: join(dir, 'token.json') } }),
      ServiceProcess.start({ service: 'notifications', env: { STORAGE_PATH: join(dir, 'notifications.yaml') } }),
    ]);
    const routes = (await Promise.all(services.map(documentedRoutes))).flat();
    await Promise.all(services.map((service) => service.stop()));
    rmSync(dir, { recursive: true, force: true });
    const requests = flow.filter((node) => node.type === 'http request');
    const called = requests.map((node) => `${node.method} ${openApiPathOf(node.url ?? '')}`);
    expect(called.sort()).toEqual(['POST /devices/{uuid}/toggle', 'POST /notifications']);
    const documented = routes.map((route) => `${route.method} ${route.path}`);
    for (const call of called) expect(documented, call).toContain(call);
    for (const request of requests) {
      const feeders = flow.filter((node) => node.wires?.flat().includes(request.id));
      expect(feeders.length, request.id).toBeGreaterThan(0);
      for (const feeder of feeders) expect(feeder.func, feeder.id).toContain("'X-API-Key': env.get('HOMEOPS_API_KEY')");
    }
  }, 60_000);
});
