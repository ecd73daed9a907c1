// Counts the Pushover calls one emergency notification costs until it ends, against the fake Pushover, in scaled
// time (SCALE ms of real time per second of Pushover time), with the default poll interval of 30 s.
// Run: npx tsx --conditions=source bench/emergency-calls.ts   (writes bench/results/emergency-calls.json at the repo root)
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, EventStreamHub } from '@homeops/common';
import { PushoverProvider } from '../src/adapters/pushover/pushover.provider.js';
import { PUSHOVER_SOUNDS } from '../src/adapters/pushover/sounds.js';
import { YamlNotificationRepository } from '../src/adapters/storage/yaml-notification.repository.js';
import { buildDomain } from '../src/build-domain.js';
import { parseConfig } from '../src/config.js';
import { createNotification } from '../src/domain/create-notification.use-case.js';
import { markRead } from '../src/domain/read-status.use-case.js';
import { startFakePushoverApi } from '../test/pushover/fake-pushover-api.js';
import { InMemoryAttachmentStore } from '../test/fakes/in-memory-attachment.store.js';

const SCALE = 4; // ms per Pushover second: 30 s polls every 120 ms
const POLL_SECONDS = 30;
const TOKEN = 'azGDORePK8gMaC0QOYAMyEEuzJnyUi';
const USER = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';
const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * SCALE));

type Scenario = { name: string; expire: number; end: { ackAfter: number } | { readAfter: number } | 'none' };
const scenarios: Scenario[] = [
  { name: 'acknowledged after 10 s', expire: 3600, end: { ackAfter: 10 } },
  { name: 'acknowledged after 2 min', expire: 3600, end: { ackAfter: 120 } },
  { name: 'acknowledged after 15 min', expire: 3600, end: { ackAfter: 900 } },
  { name: 'read on the dashboard after 2 min (cancelled)', expire: 3600, end: { readAfter: 120 } },
  { name: 'never acknowledged, expire 3600 s', expire: 3600, end: 'none' },
];

const rows = [];
for (const scenario of scenarios) {
  const fake = await startFakePushoverApi({ token: TOKEN, users: { [USER]: ['phone'] } });
  const dir = await mkdtemp(join(tmpdir(), 'emergency-calls-'));
  const repository = new YamlNotificationRepository(join(dir, 'n.yaml'));
  await repository.open();
  const provider = new PushoverProvider({ userKey: USER, apiToken: TOKEN, apiUrl: fake.url });
  const config = { ...parseConfig({}), EMERGENCY_POLL_SECONDS: (POLL_SECONDS * SCALE) / 1000 };
  const logger = createLogger({ service: 'bench', level: 'silent' });
  const { ctx, delivery, emergencies } = buildDomain(
    { logger, repository, attachments: new InMemoryAttachmentStore(), provider, hub: new EventStreamHub({ heartbeatMs: 60_000 }) },
    config,
  );
  emergencies!.start();
  const startCalls = fake.calls.length;
  const record = await createNotification(
    ctx,
    { delivery, deliveryEnabled: true, provider, defaultSounds: PUSHOVER_SOUNDS },
    { recipient: 'me', title: 'Smoke', message: 'Kitchen', priority: 2, expire: scenario.expire },
  );
  const receipt = record.delivery.receipt!;
  if (scenario.end === 'none') fake.alarm(receipt)!.expiresAt = Date.now() + scenario.expire * SCALE;
  else if ('ackAfter' in scenario.end) {
    await sleep(scenario.end.ackAfter);
    fake.acknowledge(receipt, USER, 'phone');
  } else {
    await sleep(scenario.end.readAfter);
    await markRead(ctx, record.id);
  }
  while (emergencies!.size > 0) await sleep(5);
  await sleep(POLL_SECONDS * 2);
  const calls = fake.calls.slice(startCalls);
  const count = (endpoint: string) => calls.filter((c) => c.endpoint === endpoint).length;
  rows.push({ scenario: scenario.name, messages: count('messages'), receiptChecks: count('receipt'), cancels: count('cancel'), total: calls.length });
  await emergencies!.stop();
  await delivery.stop();
  await repository.close();
  await fake.close();
  await rm(dir, { recursive: true, force: true });
}

const result = {
  pollSeconds: POLL_SECONDS,
  note: 'Per emergency notification; at start the service also makes one users/validate.json call per key and one sounds.json call (then one a day).',
  rows,
};
console.table(rows);
await writeFile(new URL('../../../bench/results/emergency-calls.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
