import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '@homeops/common';
import { describe, expect, it } from 'vitest';
import { loadRecipientMap, parseRecipientsFile } from '../../src/adapters/pushover/recipient-map.js';
import { YamlNotificationRepository } from '../../src/adapters/storage/yaml-notification.repository.js';
import { composeNotifications } from '../../src/compose.js';
import { parseConfig } from '../../src/config.js';
import type { NotificationRecord } from '../../src/domain/notification.js';
import { makeTempDir, memoryTokens, silentLogger } from '../support/test-app.js';
import { API_TOKEN, USER_KEY } from './pushover-test-kit.js';

const ALICE = 'aLiCe0000000000000000000000001';
// 63 hex characters and one that is not: a near miss that must not be echoed.
const MALFORMED = `${'7e'.repeat(31)}4z`;
const GOOD = '7e'.repeat(32);

async function startWith(recipients: string, env: Record<string, string> = {}) {
  const dir = await makeTempDir();
  const file = join(dir, 'recipients.yaml');
  await writeFile(file, recipients);
  const config = parseConfig({ STORAGE_PATH: join(dir, 'n.yaml'), RECIPIENTS_FILE: file, PROVIDER_USER_KEY: USER_KEY, PROVIDER_API_TOKEN: API_TOKEN, ...env });
  return composeNotifications(config, { logger: silentLogger, tokens: memoryTokens() });
}

describe('a malformed encryption key stops the start', () => {
  it('names the recipient of the recipients file, never the key', async () => {
    const failure = await startWith(`recipients:\n  alice: { key: ${ALICE}, encryptionKey: ${MALFORMED} }\n`).then(
      () => undefined,
      (error: unknown) => error as Error,
    );

    expect(failure?.message).toMatch(/recipients\.yaml: the encryptionKey of recipient "alice" must be 64 hexadecimal characters/);
    expect(failure?.message).not.toContain(MALFORMED.slice(0, 20));
  });

  it('names recipient "default" for PROVIDER_ENCRYPTION_KEY, never the key', () => {
    const failure = (() => {
      try {
        parseConfig({ PROVIDER_USER_KEY: USER_KEY, PROVIDER_API_TOKEN: API_TOKEN, PROVIDER_ENCRYPTION_KEY: MALFORMED });
      } catch (error) {
        return error as ConfigError;
      }
    })();

    expect(failure).toBeInstanceOf(ConfigError);
    expect(failure?.message).toMatch(/PROVIDER_ENCRYPTION_KEY: the encryption key of recipient "default" must be 64 hexadecimal characters/);
    expect(failure?.message).not.toContain(MALFORMED.slice(0, 20));
  });

  it('refuses PROVIDER_ENCRYPTION_KEY without the default key it belongs to', () => {
    expect(() => parseConfig({ PROVIDER_API_TOKEN: API_TOKEN, PROVIDER_ENCRYPTION_KEY: GOOD })).toThrow(/set PROVIDER_USER_KEY too/);
  });

  it('refuses an empty encryptionKey rather than sending in clear', () => {
    expect(() => parseRecipientsFile(`recipients:\n  alice: { key: ${ALICE}, encryptionKey: }\n`, 'r.yaml')).toThrow(
      /encryptionKey of recipient "alice" must be 64/,
    );
  });

  it('refuses a misspelt encryptionKey, which would otherwise send in clear', () => {
    expect(() => parseRecipientsFile(`recipients:\n  alice: { key: ${ALICE}, encryption_key: ${GOOD} }\n`, 'r.yaml')).toThrow(
      /recipient "alice" has an unknown setting encryption_key \(did you mean encryptionKey\?\)/,
    );
  });

  it('refuses RECIPIENTS overriding a recipient whose file entry has an encryption key', async () => {
    const file = join(await makeTempDir(), 'recipients.yaml');
    await writeFile(file, `recipients:\n  alice: { key: ${ALICE}, encryptionKey: ${GOOD} }\n`);
    expect(() => loadRecipientMap({ file, variable: `alice=${ALICE}` })).toThrow(/recipient "alice" has an encryptionKey/);
    expect(loadRecipientMap({ file, variable: `bob=${ALICE}` }).recipients.get('alice')?.encryptionKey).toBeDefined();
  });

  it('starts with well-formed keys', async () => {
    const service = await startWith(`recipients:\n  alice: { key: ${ALICE}, encryptionKey: ${GOOD.toUpperCase()} }\n`, { PROVIDER_ENCRYPTION_KEY: GOOD });
    await service.close();
  });
});

describe("a sent delivery's note", () => {
  it('is kept by the history through a close (fold) and a reopen, the record otherwise unchanged', async () => {
    const path = join(await makeTempDir(), 'n.yaml');
    const record: NotificationRecord = {
      id: '01M80X3B5M1T7RW3FQ5N2K0Y8D',
      recipient: 'alice',
      title: 'Camera',
      message: 'Motion',
      priority: 0,
      createdAt: '2026-11-28T18:00:00.000Z',
      read: false,
      readAt: null,
      delivery: {
        status: 'sent',
        attempts: 1,
        request: 'r',
        lastAttemptAt: '2026-11-28T18:00:00.100Z',
        to: 'alice',
        note: 'Encrypted: the attachment was not sent',
      },
    };
    const first = new YamlNotificationRepository(path);
    await first.open();
    await first.insert(record);
    await first.close();

    const second = new YamlNotificationRepository(path);
    await second.open();
    expect(await second.get(record.id)).toEqual(record);
    await second.close();
  });
});
