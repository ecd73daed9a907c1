import { describe, expect, it } from 'vitest';
import { parseRecipientsFile } from '../../src/adapters/pushover/recipient-map.js';

const KEY = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';

describe('the recipients file', () => {
  it('reads names, keys, devices and merge keys as it always has', () => {
    const text = `recipients:\n  alice: &base { key: ${KEY} }\n  bob:\n    <<: *base\n    devices: [iphone, ipad]\nunmapped: refuse\n`;
    const { recipients, unmapped } = parseRecipientsFile(text, 'r.yaml');
    expect(unmapped).toBe('refuse');
    expect([...recipients]).toEqual([
      ['alice', { key: KEY, devices: [] }],
      ['bob', { key: KEY, devices: ['iphone', 'ipad'] }],
    ]);
  });

  it('reads an empty file as no recipients', () => {
    expect(parseRecipientsFile('', 'r.yaml').recipients.size).toBe(0);
    expect(parseRecipientsFile('# none yet\n', 'r.yaml').recipients.size).toBe(0);
  });

  it.each([
    ['a duplicate name', `recipients:\n  a: ${KEY}\n  a: ${KEY}\n`, /^r\.yaml is not valid YAML: .*line 3, column 3$/],
    ['two documents', `recipients: {}\n---\nrecipients: {}\n`, /^r\.yaml is not valid YAML: /],
    ['an unknown tag', `recipients: !secret x\n`, /^r\.yaml is not valid YAML: Unresolved tag/],
    ['a tab as indentation', `recipients:\n\ta: ${KEY}\n`, /^r\.yaml is not valid YAML: /],
    ['a date as a device name', `recipients:\n  a: { key: ${KEY}, devices: [2024-01-01] }\n`, /invalid device name/],
  ])('refuses %s', (_, text, message) => {
    expect(() => parseRecipientsFile(text, 'r.yaml')).toThrow(message);
  });
});
