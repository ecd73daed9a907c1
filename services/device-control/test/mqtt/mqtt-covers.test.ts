import { describe, expect, it } from 'vitest';
import { configTopic, deviceTopic, homeAssistant, startBridgedService, startBroker } from './mqtt-harness.js';

const DOOR = 'sim-garage-0001';
const BLINDS = 'sim-cover-0001';

describe('device-control in Home Assistant: garage doors and covers', () => {
  it('shows a garage door as a garage cover that opens on OPEN, through opening to open', { timeout: 30_000 }, async () => {
    const broker = await startBroker();
    const ha = await homeAssistant(broker);
    const service = await startBridgedService(broker);
    const config = await ha.waitFor(configTopic(DOOR));
    expect(JSON.parse(config.payload).cmps.door0).toMatchObject({ p: 'cover', device_class: 'garage', payload_open: 'OPEN', payload_close: 'CLOSE' });
    // On the LAN: read once at the start, which costs nothing of the budget.
    await ha.waitFor(deviceTopic(DOOR, 'doors/0/state'), (m) => m.payload === 'closed');

    await ha.publish(deviceTopic(DOOR, 'doors/0/set'), 'OPEN');

    await ha.waitFor(deviceTopic(DOOR, 'doors/0/state'), (m) => m.payload === 'opening');
    await ha.waitFor(deviceTopic(DOOR, 'doors/0/state'), (m) => m.payload === 'open');
    const doors = (await (await fetch(`${service.base}/devices/${DOOR}/garage-door`)).json()) as { doors: Array<{ state: string }> };
    expect(JSON.stringify(doors)).toContain('"open"');
  });

  it('moves a cover to a position and follows its position and state', { timeout: 30_000 }, async () => {
    const broker = await startBroker();
    const ha = await homeAssistant(broker);
    await startBridgedService(broker);
    const config = await ha.waitFor(configTopic(BLINDS));
    expect(JSON.parse(config.payload).cmps.cover0).toMatchObject({
      p: 'cover',
      set_position_topic: deviceTopic(BLINDS, 'covers/0/position/set'),
      position_topic: deviceTopic(BLINDS, 'covers/0/position'),
      payload_stop: 'STOP',
    });
    await ha.waitFor(deviceTopic(BLINDS, 'covers/0/state'), (m) => m.payload === 'closed');

    await ha.publish(deviceTopic(BLINDS, 'covers/0/position/set'), '40');

    await ha.waitFor(deviceTopic(BLINDS, 'covers/0/position'), (m) => m.payload === '40');
    await ha.waitFor(deviceTopic(BLINDS, 'covers/0/state'), (m) => m.payload === 'open');
  });

  it('refuses a position out of range, publishes the true position again and the error', { timeout: 30_000 }, async () => {
    const broker = await startBroker();
    const ha = await homeAssistant(broker);
    await startBridgedService(broker);
    await ha.waitFor(deviceTopic(BLINDS, 'covers/0/position'), (m) => m.payload === '0');
    ha.clear();

    await ha.publish(deviceTopic(BLINDS, 'covers/0/position/set'), '140');

    const error = await ha.waitFor(deviceTopic(BLINDS, 'error'));
    expect(JSON.parse(error.payload)).toMatchObject({ code: 'VALIDATION_FAILED', topic: deviceTopic(BLINDS, 'covers/0/position/set') });
    await ha.waitFor(deviceTopic(BLINDS, 'covers/0/position'), (m) => m.payload === '0');
  });
});
