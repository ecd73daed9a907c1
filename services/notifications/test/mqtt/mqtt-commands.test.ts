import { eventually, Mosquitto, type ServiceProcess } from '@homeops/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyOf, homeAssistant, launchBridgedService, postNotification, topicsOf } from './mqtt-harness.js';

// The real service (src/main.ts) and a real Mosquitto: what Home Assistant publishes acts through the same use-cases
// as HTTP, and the states follow every change whichever side made it. One broker and one service for the file (each
// start compiles the sources); each test has a recipient of its own, and bob is the one nobody writes to.
const RECIPIENTS = ['alice', 'carol', 'dave', 'erin', 'bob'];
const alice = topicsOf('alice');
const carol = topicsOf('carol');
const dave = topicsOf('dave');
const erin = topicsOf('erin');

let broker: Mosquitto;
let service: ServiceProcess;
beforeAll(async () => {
  broker = await Mosquitto.start();
  service = await launchBridgedService(broker, { MQTT_RECIPIENTS: RECIPIENTS.join(',') });
}, 30_000);
afterAll(async () => {
  await service?.stop();
  await broker?.close();
});

describe('MQTT commands of the notifications bridge', () => {
  it('creates exactly one notification from a plain-text publish on the notify topic', { timeout: 30_000 }, async () => {
    const ha = await homeAssistant(broker);
    await ha.waitFor(alice.unread, (m) => m.payload === '0');

    await ha.publish(alice.notify, 'The washing machine is done');

    const history = await eventually(async () => {
      const items = await historyOf(service, 'alice');
      return items.length > 0 ? items : undefined;
    }, 'the notification in alice history');
    await ha.waitFor(alice.unread, (m) => m.payload === '1');
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ recipient: 'alice', message: 'The washing machine is done', title: '', priority: 0, read: false });
    expect(await historyOf(service, 'bob')).toEqual([]);
  });

  it('takes the POST /notifications body as JSON, with the topic naming the recipient', { timeout: 30_000 }, async () => {
    const ha = await homeAssistant(broker);
    await ha.waitFor(carol.unread);

    await ha.publish(carol.notify, JSON.stringify({ title: 'Door', message: 'The garage door is open', priority: 1, url: 'https://example.org/door' }));

    const [record] = await eventually(async () => {
      const items = await historyOf(service, 'carol');
      return items.length > 0 ? items : undefined;
    }, 'the notification');
    expect(record).toMatchObject({ recipient: 'carol', title: 'Door', message: 'The garage door is open', priority: 1, url: 'https://example.org/door' });
  });

  it('creates nothing from an invalid publish, reports why on the error topic, and stays up', { timeout: 30_000 }, async () => {
    const ha = await homeAssistant(broker);
    await ha.waitFor(dave.unread);

    await ha.publish(dave.notify, JSON.stringify({ message: 'x', priority: 7 }));
    await ha.publish(dave.notify, '{"message": "unterminated');
    await ha.publish(dave.notify, JSON.stringify({ recipient: 'bob', message: 'for someone else' }));
    await ha.publish(dave.notify, '');

    await eventually(() => ha.on(dave.error).length === 4, 'four error reports');
    const errors = ha.on(dave.error).map((m) => JSON.parse(m.payload) as { code: string; details?: Array<{ path: string }> });
    expect(errors.map((e) => e.code)).toEqual(['VALIDATION_FAILED', 'MALFORMED_JSON', 'VALIDATION_FAILED', 'VALIDATION_FAILED']);
    expect(errors[0]!.details).toEqual([expect.objectContaining({ path: 'body.priority' })]);
    expect(errors[2]!.details).toEqual([expect.objectContaining({ path: 'body.recipient' })]);
    expect(errors[3]!.details).toEqual([expect.objectContaining({ path: 'body.message' })]);
    expect(ha.on(dave.error).every((m) => !m.retain)).toBe(true);
    expect(service.running).toBe(true);
    expect(await historyOf(service, 'dave')).toEqual([]);
    expect(await historyOf(service, 'bob')).toEqual([]);
    expect((await postNotification(service, { recipient: 'dave', message: 'still here' })).status).toBe(201);
    await service.waitForOutput(/refused: /);
  });

  it('follows creates, reads and deletes in the unread sensor, and marks all read with the button', { timeout: 30_000 }, async () => {
    const ha = await homeAssistant(broker);
    await ha.waitFor(erin.unread, (m) => m.payload === '0');

    const created: string[] = [];
    for (const message of ['one', 'two', 'three']) {
      const res = await postNotification(service, { recipient: 'erin', message });
      created.push(((await res.json()) as { id: string }).id);
    }
    await ha.waitFor(erin.unread, (m) => m.payload === '3');
    await fetch(`${service.baseUrl}/notifications/${created[0]}/read`, { method: 'PATCH' });
    await ha.waitFor(erin.unread, (m) => m.payload === '2');
    await fetch(`${service.baseUrl}/notifications/${created[1]}`, { method: 'DELETE' });
    await ha.waitFor(erin.unread, (m) => m.payload === '1');

    await ha.publish(erin.markAllRead, 'PRESS');

    await ha.waitFor(erin.unread, (m) => m.payload === '0' && ha.on(erin.unread).indexOf(m) > 0);
    const history = await historyOf(service, 'erin');
    expect(history.map((n) => n.read)).toEqual([true, true]);
    expect(ha.on(topicsOf('bob').unread).map((m) => m.payload)).toEqual(['0']);
  });
});
