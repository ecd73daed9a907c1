import type { EmulatedDevice, EmulatedSubDevice } from './emulated-device.js';
import { isSafety, safetyAllEntry, safetyAnswer } from './hub-sensors.js';
import { md5 } from './emulator-api.js';

/** A Meross protocol message, as MQTT and a device's /config carry it. */
export interface MerossMessage {
  header: { messageId: string; namespace: string; method: string; from: string; timestamp: number; sign: string; payloadVersion?: number };
  payload: Record<string, unknown>;
}

/** What a device needs around it to answer, whichever transport brought the request. */
export interface DeviceContext {
  /** The account key: requests are signed with it, and so are the device's answers. */
  key: string;
  userId: string;
  /** The host of the device's broker, which System.All names. */
  brokerHost: string;
  /** The device is connected to its cloud broker (System.All's online status says so). */
  cloudConnected: boolean;
  /** A push to the device's cloud broker; it reaches nobody while the device is off the cloud. */
  push: (namespace: string, payload: unknown) => void;
}

type Reply = (method: string, payload: unknown) => void;

/** A message from the device, signed with the account key. */
export function deviceMessage(uuid: string, key: string, namespace: string, method: string, payload: unknown, messageId: string): MerossMessage {
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    header: { messageId, namespace, method, from: `/appliance/${uuid}/publish`, timestamp, payloadVersion: 1, sign: md5(`${messageId}${key}${timestamp}`) },
    payload: payload as Record<string, unknown>,
  };
}

/**
 * One request as the device handles it on either transport: never answered while it is offline, installing
 * firmware or told to drop replies; ERROR 5001 for a wrong signature; its forced error; else its answer, `replyDelayMs`
 * later when set. The state it reads and changes is the device's one state, so both transports agree.
 */
export function receiveRequest(device: EmulatedDevice, ctx: DeviceContext, request: MerossMessage, send: (reply: MerossMessage) => void): void {
  if (!device.online || device.upgrading || device.dropReplies) return;
  const { header } = request;
  const reply: Reply = (method, body) => {
    const message = deviceMessage(device.uuid, ctx.key, header.namespace, method, body, header.messageId);
    if (device.replyDelayMs > 0) setTimeout(() => send(message), device.replyDelayMs);
    else send(message);
  };
  if (md5(`${header.messageId}${ctx.key}${header.timestamp}`) !== header.sign) return reply('ERROR', { error: { code: 5001, detail: 'sign error' } });
  if (device.errorCode !== null) return reply('ERROR', { error: { code: device.errorCode, detail: 'device error' } });
  answer(device, ctx, header.method, header.namespace, record(request.payload), reply);
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

const list = <T>(value: unknown): T[] => ([] as T[]).concat((value as T[] | T | undefined) ?? []);
const unsupported = (reply: Reply) => reply('ERROR', { error: { code: 5000, detail: 'unsupported' } });

/** What the device answers to one method and namespace; every branch replies at once (Multiple relies on it). */
function answer(device: EmulatedDevice, ctx: DeviceContext, method: string, namespace: string, payload: Record<string, unknown>, reply: Reply): void {
  const call = `${method} ${namespace}`;
  if (call === 'SET Appliance.Control.Multiple' && device.multiple !== null) return multiple(device, ctx, payload, reply);
  if (call === 'GET Appliance.System.All') return reply('GETACK', device.systemAll(ctx.userId, ctx.brokerHost, ctx.cloudConnected));
  if (call === 'GET Appliance.System.Online') return reply('GETACK', { online: { status: device.onlineStatus } });
  if (call === 'GET Appliance.System.Ability') return reply('GETACK', { payloadVersion: 1, ability: device.abilityPayload() });
  if (call === 'GET Appliance.Encrypt.Suite' && device.encryption) return reply('GETACK', { suite: { ka: 'ecdhe256', se: 'mrskey', ds: '' } });
  if (call === 'GET Appliance.GarageDoor.State' && device.garageDoor) return reply('GETACK', { state: device.doorStates() });
  if (call === 'SET Appliance.GarageDoor.State' && device.garageDoor) return moveDoor(device, ctx, payload, reply);
  if (call === 'GET Appliance.RollerShutter.Position' && device.cover) return reply('GETACK', { position: [{ channel: 0, position: device.coverNow() }] });
  if (call === 'GET Appliance.RollerShutter.State' && device.cover) {
    return reply('GETACK', { state: [{ channel: 0, state: device.coverMotion(), stoppedBy: 0, lmTime: Math.floor(Date.now() / 1000) }] });
  }
  if (call === 'SET Appliance.RollerShutter.Position' && device.cover) return moveCover(device, ctx, payload, reply);
  if (call === 'GET Appliance.Control.Electricity' && device.type === 'mss310') {
    // Units as the plugs send them: mW, decivolts, mA.
    const power = device.isOn(0) ? 42_500 : 300;
    return reply('GETACK', { electricity: { channel: 0, power, voltage: 2305, current: Math.round(power / 230.5) } });
  }
  if (call === 'GET Appliance.Control.ConsumptionX' && device.type === 'mss310') return reply('GETACK', { consumptionx: device.consumption() });
  if (device.hubDevices.length > 0 && namespace.startsWith('Appliance.Hub.')) return hub(device, call, payload, reply);
  if (device.thermostat?.answer(method, namespace, payload, reply)) return;
  if (call === 'GET Appliance.Control.Light' && device.lightCapacity !== null) return reply('GETACK', { light: device.lightState() });
  if (call === 'SET Appliance.Control.Light' && device.lightCapacity !== null) return setLight(device, ctx, payload, reply);
  if (call === 'GET Appliance.Control.ToggleX' && device.protocol === 'togglex') return reply('GETACK', { togglex: device.toggleStates() });
  if (call === 'SET Appliance.Control.ToggleX' && device.protocol === 'togglex') {
    const entries = list<{ channel?: unknown; onoff?: unknown }>(payload.togglex);
    const ok = entries.length > 0 && entries.every((e) => typeof e.channel === 'number' && device.set(e.channel, e.onoff === 1));
    return ok ? reply('SETACK', {}) : reply('ERROR', { error: { code: 5000, detail: 'bad channel' } });
  }
  if (call === 'GET Appliance.Control.Toggle' && device.protocol === 'toggle') {
    return reply('GETACK', { toggle: { onoff: device.isOn(0) ? 1 : 0, lmTime: Math.floor(Date.now() / 1000) } });
  }
  if (call === 'SET Appliance.Control.Toggle' && device.protocol === 'toggle') {
    device.set(0, (payload.toggle as { onoff?: unknown } | undefined)?.onoff === 1);
    return reply('SETACK', {});
  }
  unsupported(reply);
}

/**
 * Appliance.Control.Multiple, as meross_lan sends it: `{ multiple: [{ header: { messageId, method, namespace },
 * payload }] }`, answered with SETACK `{ multiple: [answer messages] }`. Past `maxCmdNum` the device answers only
 * the first ones (meross_lan copes with such short answers); a Multiple inside a Multiple is an ERROR.
 */
function multiple(device: EmulatedDevice, ctx: DeviceContext, payload: Record<string, unknown>, reply: Reply): void {
  const answers: MerossMessage[] = [];
  for (const inner of list<{ header?: Record<string, unknown>; payload?: unknown }>(payload.multiple).slice(0, device.multiple ?? 0)) {
    const header = record(inner.header);
    const [messageId, method, namespace] = [header.messageId, header.method, header.namespace].map((v) => (typeof v === 'string' ? v : ''));
    const add: Reply = (answerMethod, body) => answers.push(deviceMessage(device.uuid, ctx.key, namespace!, answerMethod, body, messageId!));
    if (namespace === 'Appliance.Control.Multiple' || !method || !namespace) unsupported(add);
    else answer(device, ctx, method, namespace, record(inner.payload), add);
  }
  reply('SETACK', { multiple: answers });
}

/** As meross_lan observed: a light command also turns the light on. */
function setLight(device: EmulatedDevice, ctx: DeviceContext, payload: Record<string, unknown>, reply: Reply): void {
  const light = payload.light as Partial<Record<'luminance' | 'temperature' | 'rgb', unknown>> | undefined;
  for (const key of ['luminance', 'temperature', 'rgb'] as const) if (typeof light?.[key] === 'number') device.light[key] = light[key];
  reply('SETACK', {});
  ctx.push('Appliance.Control.Light', { light: device.lightState() });
  if (!device.isOn(0)) {
    device.set(0, true);
    ctx.push('Appliance.Control.ToggleX', { togglex: [{ channel: 0, onoff: 1, lmTime: Math.floor(Date.now() / 1000) }] });
  }
}

/** As an opener does: answers at once with where the door was, moves it, and pushes where it ends up. */
function moveDoor(device: EmulatedDevice, ctx: DeviceContext, payload: Record<string, unknown>, reply: Reply): void {
  const request = payload.state as { channel?: unknown; open?: unknown } | undefined;
  const channel = typeof request?.channel === 'number' ? request.channel : -1;
  const open = request?.open === 1;
  const before = device.doorStates().find((d) => d.channel === channel);
  if (!before) return reply('ERROR', { error: { code: 5000, detail: 'bad channel' } });
  reply('SETACK', { state: { ...before, execute: 1 } });
  if ((before.open === 1) === open) return;
  setTimeout(() => {
    device.setDoor(channel, open);
    ctx.push('Appliance.GarageDoor.State', { state: device.doorStates().filter((d) => d.channel === channel) });
  }, device.doorTravelMs);
}

/** As a roller shutter does: SETACK at once, then State and Position pushes as it starts, stops or arrives. */
function moveCover(device: EmulatedDevice, ctx: DeviceContext, payload: Record<string, unknown>, reply: Reply): void {
  const request = payload.position as { channel?: unknown; position?: unknown } | undefined;
  const target = typeof request?.position === 'number' ? request.position : Number.NaN;
  if (request?.channel !== 0 || !(target === -1 || (target >= 0 && target <= 100))) return reply('ERROR', { error: { code: 5000, detail: 'bad position' } });
  reply('SETACK', {});
  const pushState = () => {
    const lmTime = Math.floor(Date.now() / 1000);
    ctx.push('Appliance.RollerShutter.State', { state: [{ channel: 0, state: device.coverMotion(), stoppedBy: 0, lmTime }] });
  };
  const pushPosition = () => ctx.push('Appliance.RollerShutter.Position', { position: [{ channel: 0, position: device.coverPosition }] });
  const here = device.coverNow();
  if (device.coverRun) clearTimeout(device.coverRun.timer);
  device.coverRun = null;
  device.coverPosition = here;
  if (target === -1 || target === here) {
    pushState();
    pushPosition();
    return;
  }
  const timer = setTimeout(
    () => {
      device.coverRun = null;
      device.coverPosition = target;
      pushState();
      pushPosition();
    },
    (device.coverTravelMs * Math.abs(target - here)) / 100,
  );
  device.coverRun = { from: here, to: target, startedAt: Date.now(), timer };
  pushState();
}

/** A hub's namespaces for the valves and sensors behind it, as meross_lan describes them. */
function hub(device: EmulatedDevice, call: string, payload: Record<string, unknown>, reply: Reply): void {
  const valves = device.hubDevices.filter((d) => d.kind === 'valve');
  const sensors = device.hubDevices.filter((d) => d.kind !== 'valve');
  const online = (d: EmulatedSubDevice) => ({ status: d.online ? 1 : 2, lastActiveTime: Math.floor(Date.now() / 1000) });
  const byId = (id: unknown) => device.hubDevices.find((d) => d.id === id);
  if (call === 'GET Appliance.Hub.Mts100.All') {
    return reply('GETACK', {
      all: valves.map((v) => ({
        id: v.id,
        online: online(v),
        togglex: { onoff: v.onoff },
        mode: { state: v.mode },
        temperature: {
          room: v.room,
          currentSet: v.custom,
          custom: v.custom,
          comfort: 240,
          economy: 180,
          away: 120,
          min: 50,
          max: 350,
          heating: 1,
          openWindow: 0,
        },
      })),
    });
  }
  if (call === 'GET Appliance.Hub.Sensor.All') {
    return reply('GETACK', {
      all: sensors.map((s) =>
        isSafety(s)
          ? { id: s.id, online: online(s), ...safetyAllEntry(s) }
          : { id: s.id, online: online(s), temperature: { latest: s.room, max: 400, min: -200 }, humidity: { latest: s.humidity } },
      ),
    });
  }
  if (call === 'GET Appliance.Hub.Battery') return reply('GETACK', { battery: device.hubDevices.map((d) => ({ id: d.id, value: d.battery })) });
  if (call === 'SET Appliance.Hub.ToggleX') {
    for (const t of list<{ id?: unknown; onoff?: unknown }>(payload.togglex)) {
      const valve = byId(t.id);
      if (valve?.kind === 'valve') valve.onoff = t.onoff === 1 ? 1 : 0;
    }
    return reply('SETACK', {});
  }
  if (call === 'SET Appliance.Hub.Mts100.Temperature') {
    const set = list<{ id?: unknown; custom?: unknown }>(payload.temperature);
    for (const t of set) {
      const valve = byId(t.id);
      if (valve?.kind === 'valve' && typeof t.custom === 'number') valve.custom = t.custom;
    }
    return reply('SETACK', { temperature: set });
  }
  if (call === 'SET Appliance.Hub.Mts100.Mode') {
    for (const m of list<{ id?: unknown; state?: unknown }>(payload.mode)) {
      const valve = byId(m.id);
      if (valve?.kind === 'valve' && typeof m.state === 'number') valve.mode = m.state;
    }
    return reply('SETACK', {});
  }
  const safety = safetyAnswer(device.hubDevices, call);
  if (safety && device.hubDevices.some(isSafety)) return reply('GETACK', safety);
  unsupported(reply);
}
