import { createServer, type Server } from 'node:net';
import aedes from 'aedes';
import { PacketSizeGuard } from '@homeops/common/mqtt';
import { eventually, freePort, MqttRecorder } from '@homeops/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_COMMAND_BYTES, MAX_PACKET_BYTES } from '../../src/adapters/mqtt/device-control-mqtt.adapter.js';
import { afterTest, bridgeState, configTopic, deviceTopic, homeAssistant, startBridgedService, startBroker } from './mqtt-harness.js';

const STRIP = 'sim-strip-0001';

/** An MQTT packet of `remaining` bytes after its fixed header (the bytes are not a valid body: the guard reads only frames). */
function packet(remaining: number): Buffer {
  const length: number[] = [];
  let left = remaining;
  do {
    const byte = left % 128;
    left = Math.floor(left / 128);
    length.push(left > 0 ? byte | 0x80 : byte);
  } while (left > 0);
  return Buffer.concat([Buffer.from([0x30, ...length]), Buffer.alloc(remaining, 7)]);
}

/** A broker that speaks only MQTT 3.1.1 and knows nothing of a client's packet limit (aedes), on a free loopback port. */
async function startOldBroker(): Promise<{ url: string }> {
  const broker = aedes.createBroker();
  const server: Server = createServer((socket) => broker.handle(socket));
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  afterTest(async () => {
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `mqtt://127.0.0.1:${port}` };
}

describe('PacketSizeGuard', () => {
  it('finds the first packet over the limit from its fixed header, however the bytes are cut into chunks', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 8 }),
        fc.integer({ min: 0, max: 20_000 }),
        fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 20 }),
        (sizes, last, cuts) => {
          const limit = 1 + 2 + 300;
          const stream = Buffer.concat([...sizes.map(packet), packet(last)]);
          const guard = new PacketSizeGuard(limit);
          let found: number | undefined;
          let offset = 0;
          for (let i = 0; offset < stream.length && found === undefined; i++) {
            const size = cuts[i % cuts.length]!;
            found = guard.check(stream.subarray(offset, offset + size));
            offset += size;
          }
          const lastSize = packet(last).length;
          if (lastSize > limit) {
            expect(found).toBe(lastSize);
            // Known from the header: the packet's body was not needed to tell.
            expect(offset).toBeLessThan(stream.length - last + 1 + Math.max(...cuts));
          } else expect(found).toBeUndefined();
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads the four-byte remaining length of a 64 MB packet', () => {
    const guard = new PacketSizeGuard(1024);
    const header = packet(0).subarray(0, 1);
    // 64 MiB as MQTT's variable byte integer: 0x80 0x80 0x80 0x20.
    expect(guard.check(Buffer.concat([header, Buffer.from([0x80, 0x80, 0x80, 0x20])]))).toBe(1 + 4 + 64 * 1024 * 1024);
  });
});

describe('device-control MQTT: message size limits', () => {
  it('asks Mosquitto for MQTT 5 with a maximum packet size, so a 16 MB command never reaches it and the bridge stays up', { timeout: 60_000 }, async () => {
    const broker = await startBroker();
    const ha = await homeAssistant(broker);
    const service = await startBridgedService(broker);
    await ha.waitFor(configTopic(STRIP));
    await bridgeState(service, 'connected');
    const connectedSince = (await service.health()).mqtt.since;

    await ha.publish(deviceTopic(STRIP, 'channels/1/set'), Buffer.alloc(MAX_PACKET_BYTES * 16, 'O'));
    await ha.publish(deviceTopic(STRIP, 'channels/1/set'), 'ON');

    await ha.waitFor(deviceTopic(STRIP, 'channels/1/state'), (m) => m.payload === 'ON');
    // The same connection: had the broker sent the packet, the bridge's guard would have ended it.
    expect((await service.health()).mqtt).toMatchObject({ state: 'connected', since: connectedSince, lastError: null });
    expect(ha.on(deviceTopic(STRIP, 'error'))).toEqual([]);
  });

  it('refuses a command over MAX_COMMAND_BYTES before reading it, on the device error topic', { timeout: 30_000 }, async () => {
    const broker = await startBroker();
    const ha = await homeAssistant(broker);
    const service = await startBridgedService(broker);
    await ha.waitFor(configTopic(STRIP));
    await bridgeState(service, 'connected');

    await ha.publish(deviceTopic(STRIP, 'lights/0/set'), `{"state":"ON","pad":"${'x'.repeat(MAX_COMMAND_BYTES)}"}`);

    const error = await ha.waitFor(deviceTopic(STRIP, 'error'));
    expect(JSON.parse(error.payload)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', topic: deviceTopic(STRIP, 'lights/0/set') });
    expect((await service.health()).mqtt.state).toBe('connected');
  });

  it('speaks MQTT 3.1.1 to a broker without MQTT 5, and ends the connection at the header of a packet over the limit', { timeout: 60_000 }, async () => {
    const broker = await startOldBroker();
    const service = await startBridgedService(broker);
    await bridgeState(service, 'connected');
    const ha = await MqttRecorder.connect(broker.url, ['homeops/#']);
    afterTest(() => ha.close());
    await ha.waitFor(deviceTopic(STRIP, 'availability'));

    await ha.publish(deviceTopic(STRIP, 'channels/1/set'), Buffer.alloc(MAX_PACKET_BYTES + 1, 'O'));

    const health = await eventually(async () => {
      const now = await service.health();
      return now.mqtt.state !== 'connected' && now.mqtt.lastError?.includes('limit') ? now : undefined;
    }, 'the bridge to drop the connection');
    expect(health.mqtt.lastError).toContain(`the limit is ${MAX_PACKET_BYTES}`);
    await bridgeState(service, 'connected');
    await ha.publish(deviceTopic(STRIP, 'channels/1/set'), 'ON');
    await eventually(async () => (await service.channelOn(STRIP, 1)) === true, 'the next command to act');
  });
});
