import { z } from '../zod.js';
import type { MqttStatus } from './mqtt-bridge.js';

/** The `mqtt` part of a service's /health: the bridge's state, the broker without credentials, the last error. */
export const MqttStatusSchema = z
  .object({
    state: z.enum(['connected', 'connecting', 'disconnected', 'off']),
    broker: z.string().nullable().openapi({ description: 'scheme://host:port, never a user name or password' }),
    lastError: z.string().nullable(),
    since: z.string().nullable().openapi({ description: 'When the current state began' }),
  })
  .openapi({ description: 'The MQTT bridge to Home Assistant (off without MQTT_URL); a broker outage never fails a request' });

/** The status of a service whose bridge is off (no MQTT_URL). */
export const MQTT_OFF: MqttStatus = { state: 'off', broker: null, lastError: null, since: null };
