import { createLogger, ManualClock } from '@homeops/common';
import { MqttBridge, OutboundQueue, type OutboundMessage } from '@homeops/common/mqtt';
import { drainEventLoop, eventually, freePort } from '@homeops/test-kit';
import { describe, expect, it } from 'vitest';

// The shared plumbing on its own: the outbound queue's bounds, and the reconnect backoff moved by a ManualClock.
const logger = createLogger({ service: 'test', level: 'silent' });

function queueWith(maxQueued: number, maxInFlight: number) {
  const sent: OutboundMessage[] = [];
  const acks: Array<() => void> = [];
  let dropped = 0;
  const queue = new OutboundQueue({
    maxQueued,
    maxInFlight,
    send: (message) => {
      sent.push(message);
      return new Promise<void>((resolve) => acks.push(resolve));
    },
    onDropped: () => dropped++,
  });
  return { queue, sent, acks, dropped: () => dropped };
}

describe('OutboundQueue', () => {
  it('keeps the latest payload per retained topic and the newest events past its bound while paused', () => {
    const { queue, sent, dropped } = queueWith(3, 100);
    queue.retain('a/state', '1', 'state');
    queue.retain('a/state', '2', 'state');
    for (let i = 0; i < 5; i++) queue.push('a/event', String(i));

    expect(sent).toEqual([]);
    expect(queue.pending).toBe(4);
    expect(dropped()).toBe(1);

    queue.resendAll();
    expect(sent.map((m) => `${m.topic}=${m.payload}`)).toEqual(['a/state=2', 'a/event=2', 'a/event=3', 'a/event=4']);
  });

  it('publishes a retained topic again only when its payload changed, or when asked to (a refused command)', async () => {
    const { queue, sent, acks } = queueWith(10, 100);
    queue.resendAll();
    queue.retain('a/state', 'ON', 'state');
    acks.shift()!();
    await drainEventLoop();

    queue.retain('a/state', 'ON', 'state');
    queue.retain('a/state', 'OFF', 'state');
    queue.retain('a/state', 'OFF', 'state');
    queue.retain('a/state', 'OFF', 'state', true);

    expect(sent.map((m) => `${m.topic}=${m.payload}`)).toEqual(['a/state=ON', 'a/state=OFF', 'a/state=OFF']);
  });

  it('resends every config before any state, and holds at most maxInFlight unacknowledged', async () => {
    const { queue, sent, acks } = queueWith(10, 2);
    queue.retain('s/1', 'x', 'state');
    queue.retain('c/1', '{}', 'discovery');
    queue.retain('s/2', 'y', 'state');
    queue.retain('c/2', '{}', 'discovery');

    queue.resendAll();
    expect(sent.map((m) => m.topic)).toEqual(['c/1', 'c/2']);
    acks.shift()!();
    acks.shift()!();
    await drainEventLoop();
    expect(sent.map((m) => m.topic)).toEqual(['c/1', 'c/2', 's/1', 's/2']);
    expect(sent.every((m) => m.retain)).toBe(true);
  });
});

describe('MqttBridge reconnects', () => {
  it('backs off on its clock, doubling from MQTT_RECONNECT_MIN_MS up to MQTT_RECONNECT_MAX_MS', { timeout: 30_000 }, async () => {
    const clock = new ManualClock();
    const port = await freePort();
    const bridge = new MqttBridge({
      settings: {
        url: `mqtt://127.0.0.1:${port}`,
        rejectUnauthorized: true,
        discoveryPrefix: 'homeassistant',
        baseTopic: 'test/bridge',
        reconnectMinMs: 100,
        reconnectMaxMs: 400,
      },
      origin: { name: 'test', swVersion: '1', supportUrl: 'http://localhost/' },
      clock,
      logger,
    });
    const failed = () => eventually(() => bridge.status().state === 'disconnected' && clock.timers === 1, 'a refused attempt');
    bridge.start();
    await failed();
    const since = bridge.status().since;

    const waits: number[] = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      let waited = 0;
      while (clock.timers === 1) {
        clock.advance(50);
        waited += 50;
      }
      waits.push(waited);
      await failed();
    }
    await bridge.stop();

    expect(waits).toEqual([100, 200, 400, 400]);
    expect(bridge.status()).toMatchObject({ state: 'off', lastError: expect.stringContaining('ECONNREFUSED') });
    expect(since).not.toBeNull();
    expect(clock.timers).toBe(0);
  });
});
