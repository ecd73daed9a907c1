import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeRecord, encodeRecord } from '../../src/adapters/storage/record-codec.js';
import type { Delivery, Emergency, NotificationRecord } from '../../src/domain/notification.js';
import { benchRecord } from '../../bench/storage-bench-data.js';
import { makeRecord } from './make-record.js';
import { recordPerVariant } from './record-variants.js';

const roundTrip = (record: NotificationRecord) => {
  const bytes = Buffer.from(encodeRecord(record));
  return { bytes, back: decodeRecord(bytes, 0, bytes.length) };
};

const isoTime = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
const anyText = fc.string({ unit: 'binary', maxLength: 40 });

describe('record codec', () => {
  it('gives back an equal record, in the documented key order, for a realistic delivered record in about half its JSON size', () => {
    const record = benchRecord(42);
    const { bytes, back } = roundTrip(record);
    expect(back).toEqual(record);
    expect(Object.keys(back)).toEqual(Object.keys(record));
    expect(bytes.length).toBeLessThan(JSON.stringify(record).length * 0.65);
  });

  it('gives back the same JSON, byte for byte, for a record of every delivery status and alarm state', () => {
    for (const record of recordPerVariant()) expect(JSON.stringify(roundTrip(record).back)).toBe(JSON.stringify(record));
  });

  it('keeps what does not fit its compact forms: odd times, lone surrogates, unknown keys, non-string text, emergencies, attachments', () => {
    const odd = makeRecord({
      title: 'lone \ud800 surrogate',
      message: 'NUL \u0000 and 🚪',
      createdAt: '2026-01-01T00:00:00Z',
      readAt: 'yesterday',
      read: true,
      html: false,
      monospace: true,
      ttl: 1.5,
      attachment: { filename: 'a.png', contentType: 'image/png', size: 3 },
      emergency: { retry: 30, expire: 60, acknowledgedBy: 'alice' } as unknown as Emergency,
      delivery: {
        status: 'unknown',
        attempts: 300,
        error: 'x',
        to: 'alice',
        resentAt: '2026-11-24T10:00:00.000Z',
        nextAttemptAt: 'soon',
      } as unknown as Delivery,
    });
    const extra = {
      ...makeRecord(),
      custom: { nested: [1, 'two'] },
      delivery: { status: 'sent', attempts: 0, note: 7, request: 12 },
    } as unknown as NotificationRecord;
    const unknownStatus = { ...makeRecord(), delivery: { status: 'teleported', attempts: 1 } } as unknown as NotificationRecord;
    for (const record of [odd, extra, unknownStatus]) expect(roundTrip(record).back).toEqual(record);
  });

  it('round-trips any record of the valid shape (property test)', () => {
    const record = fc.record(
      {
        id: fc.oneof(fc.uuid(), fc.string({ minLength: 1, maxLength: 30 })),
        recipient: anyText,
        title: anyText,
        message: fc.string({ unit: 'grapheme', maxLength: 200 }),
        priority: fc.integer({ min: -2, max: 2 }),
        sound: anyText,
        url: fc.webUrl(),
        html: fc.boolean(),
        ttl: fc.integer({ min: 1, max: 1e9 }),
        read: fc.boolean(),
        readAt: fc.option(fc.oneof(isoTime, anyText), { nil: null }),
        createdAt: fc.oneof(isoTime, anyText),
        delivery: fc.record(
          {
            status: fc.constantFrom('sent', 'pending', 'failed', 'skipped', 'expired', 'unknown'),
            attempts: fc.nat({ max: 2 ** 40 }),
            request: fc.oneof(fc.uuid(), anyText),
            receipt: anyText,
            lastAttemptAt: isoTime,
            nextAttemptAt: fc.oneof(isoTime, anyText),
          },
          { requiredKeys: ['status', 'attempts'] },
        ),
      },
      { requiredKeys: ['id', 'recipient', 'title', 'message', 'priority', 'read', 'readAt', 'createdAt', 'delivery'] },
    );
    fc.assert(
      fc.property(record, (r) => {
        expect(roundTrip(r as NotificationRecord).back).toEqual(r);
      }),
      { numRuns: 500 },
    );
  });
});
