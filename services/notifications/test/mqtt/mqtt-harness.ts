import { afterTest, createTestPki, Mosquitto, MqttRecorder, ServiceProcess, eventually } from '@homeops/test-kit';

export const BASE = 'homeops/notifications';
export const PREFIX = 'homeassistant';
export const DEVICE_ALICE = 'homeops_notifications_alice';
export const topicsOf = (slug: string) => {
  const at = `${BASE}/recipients/${slug}`;
  return { notify: `${at}/notify`, error: `${at}/notify/error`, unread: `${at}/unread`, markAllRead: `${at}/mark-all-read`, alarm: `${at}/alarm` };
};
export const configTopic = (deviceId: string) => `${PREFIX}/device/${deviceId}/config`;

/** test-kit's, so a file may take every helper from here. */
export { afterTest };

/** A fresh broker, stopped after the test. */
export async function startBroker(options: Parameters<typeof Mosquitto.start>[0] = {}): Promise<Mosquitto> {
  const broker = await Mosquitto.start(options);
  afterTest(() => broker.close());
  return broker;
}

/** A fresh broker on mqtts:// whose certificate (for 127.0.0.1) a throwaway CA signed; both gone after the test. */
export async function startTlsBroker(): Promise<{ broker: Mosquitto; caFile: string }> {
  const pki = createTestPki('mqtt-tls-');
  afterTest(async () => pki.remove());
  const broker = await startBroker({ tls: pki.issue(['127.0.0.1']) });
  return { broker, caFile: pki.caFile };
}

/** Home Assistant's side: a client that records everything under the prefix and the base topic. */
export async function homeAssistant(broker: Mosquitto, options: Parameters<typeof MqttRecorder.connect>[2] = {}): Promise<MqttRecorder> {
  const recorder = await MqttRecorder.connect(broker.url, [`${PREFIX}/#`, `${BASE}/#`], options);
  afterTest(() => recorder.close());
  return recorder;
}

/** The service as users run it (src/main.ts in a child process), bridged to `broker` for alice and bob; the caller stops it. */
export function launchBridgedService(broker: Mosquitto, env: Record<string, string> = {}): Promise<ServiceProcess> {
  return ServiceProcess.start({
    service: 'notifications',
    env: { MQTT_URL: broker.url, MQTT_RECIPIENTS: 'alice,bob', MQTT_RECONNECT_MIN_MS: '50', MQTT_RECONNECT_MAX_MS: '200', ...env },
  });
}

/** The bridged service of `launchBridgedService`, stopped after the test. */
export async function startBridgedService(broker: Mosquitto, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const service = await launchBridgedService(broker, env);
  afterTest(() => service.stop());
  return service;
}

/** The service's /health body. */
export async function health(
  service: ServiceProcess,
): Promise<{ status: string; problems?: string[]; mqtt: Record<string, unknown> } & Record<string, unknown>> {
  const res = await fetch(`${service.baseUrl}/health`);
  return (await res.json()) as never;
}

/** Waits until /health says the bridge is in `state`. */
export function bridgeState(service: ServiceProcess, state: string, timeoutMs = 10_000) {
  return eventually(async () => ((await health(service)).mqtt.state === state ? health(service) : undefined), {
    what: `the bridge to be ${state}`,
    timeoutMs,
  });
}

/** A recipient's notifications through the HTTP API, newest first. */
export async function historyOf(service: ServiceProcess, recipient: string): Promise<Array<Record<string, unknown>>> {
  const res = await fetch(`${service.baseUrl}/notifications/${recipient}?limit=500`);
  return (await res.json()) as Array<Record<string, unknown>>;
}

/** POST /notifications with a JSON body. */
export function postNotification(service: ServiceProcess, body: object): Promise<Response> {
  return fetch(`${service.baseUrl}/notifications`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}
