import { describe, expect, it } from 'vitest';
import { FallbackSenders } from '../../src/adapters/fallback/fallback-senders.js';
import { parseFallbackList, parseFallbackTarget } from '../../src/adapters/fallback/fallback-target.js';
import { headerText, ntfyPriority, ntfyRequest } from '../../src/adapters/fallback/ntfy-request.js';
import { parseRecipientsFile, RecipientMapError } from '../../src/adapters/pushover/recipient-map.js';

const KEY = 'aLiCe0000000000000000000000001';
const TOKEN = 'tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2';

describe('fallback targets', () => {
  it('reads ntfy topics over https and http, with the token apart from the name and url', () => {
    expect(parseFallbackTarget('ntfy+https://ntfy.sh/alerts')).toEqual({ channel: 'ntfy', name: 'ntfy.sh/alerts', url: 'https://ntfy.sh/alerts' });
    expect(parseFallbackTarget(`ntfy+http://10.0.0.5:8080/home-alarms?token=${TOKEN}`)).toEqual({
      channel: 'ntfy',
      name: '10.0.0.5:8080/home-alarms',
      url: 'http://10.0.0.5:8080/home-alarms',
      token: TOKEN,
    });
    expect(parseFallbackTarget('ntfy+https://example.com/ntfy/alerts')).toMatchObject({
      name: 'example.com/ntfy/alerts',
      url: 'https://example.com/ntfy/alerts',
    });
  });

  it('reads mailto: addresses', () => {
    expect(parseFallbackTarget('mailto:alice@example.com')).toEqual({ channel: 'email', name: 'alice@example.com', address: 'alice@example.com' });
  });

  it.each([
    ['https://ntfy.sh/alerts', /ntfy\+https/],
    ['ntfy+ftp://ntfy.sh/alerts', /ntfy\+https/],
    ['ntfy+https://ntfy.sh/', /needs a topic/],
    ['ntfy+https://ntfy.sh/a b', /needs a topic/],
    ['ntfy+https://ntfy.sh/alerts?priority=5', /only \?token=/],
    ['ntfy+https://ntfy.sh/alerts?token=', /empty \?token=/],
    [`ntfy+https://user:${TOKEN}@ntfy.sh/alerts`, /not in the address/],
    ['mailto:', /one e-mail address/],
    ['mailto:alice@example.com,bob@example.com', /one e-mail address/],
    ['mailto:alice', /one e-mail address/],
  ])('refuses %s, never showing a token', (text, problem) => {
    let error: Error | undefined;
    try {
      parseFallbackTarget(text);
    } catch (err) {
      error = err as Error;
    }
    expect(error?.message).toMatch(problem);
    expect(error?.message).not.toContain(TOKEN);
  });

  it('takes one target or a list, each once', () => {
    expect(parseFallbackList('mailto:a@example.com')).toHaveLength(1);
    expect(() => parseFallbackList(['mailto:a@example.com', 'mailto:a@example.com'])).toThrow(/twice/);
    expect(() => parseFallbackList([42])).toThrow(/as text/);
  });

  it('reads `fallback:` in the recipients file, and a malformed one stops the start naming the recipient, not the token', () => {
    const file = `recipients:\n  alice:\n    key: ${KEY}\n    fallback: [ "ntfy+https://ntfy.sh/alerts?token=${TOKEN}", "mailto:alice@example.com" ]\n  bob: bOb00000000000000000000000002b\n`;
    const map = parseRecipientsFile(file, 'recipients.yaml').recipients;
    expect(map.get('alice')?.fallback?.map((t) => t.name)).toEqual(['ntfy.sh/alerts', 'alice@example.com']);
    expect(map.get('bob')?.fallback).toBeUndefined();

    const bad = `recipients:\n  alice:\n    key: ${KEY}\n    fallback: "ntfy+https://ntfy.sh/?token=${TOKEN}"\n`;
    expect(() => parseRecipientsFile(bad, 'recipients.yaml')).toThrow(RecipientMapError);
    expect(() => parseRecipientsFile(bad, 'recipients.yaml')).toThrow(/recipients\.yaml: the fallback of recipient "alice" is not valid/);
    expect(() => parseRecipientsFile(bad, 'recipients.yaml')).not.toThrow(new RegExp(TOKEN));
  });
});

describe('the fallback senders', () => {
  it('refuse to start with a mailto: target but no SMTP_URL and SMTP_FROM, naming the recipient', () => {
    const targets = new Map([['alice', [parseFallbackTarget('mailto:alice@example.com')]]]);
    expect(() => new FallbackSenders({ targets, timeoutMs: 1000 })).toThrow('recipient "alice" has a mailto: fallback, so SMTP_URL and SMTP_FROM must be set');
  });

  it('list each target for /health without its token, before any send', () => {
    const targets = new Map([['alice', [parseFallbackTarget(`ntfy+https://ntfy.sh/alerts?token=${TOKEN}`)]]]);
    const senders = new FallbackSenders({ targets, timeoutMs: 1000 });
    expect(senders.targetsOf('alice')).toEqual([{ channel: 'ntfy', name: 'ntfy.sh/alerts' }]);
    expect(senders.targetsOf('bob')).toEqual([]);
    expect(senders.status()).toEqual([{ recipient: 'alice', channel: 'ntfy', name: 'ntfy.sh/alerts', lastResult: null, at: null }]);
  });
});

describe('the ntfy request', () => {
  it("maps Pushover's priorities to ntfy's: 2→5, 1→4, 0→3, −1→2, −2→1", () => {
    expect(([2, 1, 0, -1, -2] as const).map(ntfyPriority)).toEqual([5, 4, 3, 2, 1]);
  });

  it('encodes a non-ASCII title as an RFC 2047 word and leaves ASCII as it is', () => {
    expect(headerText('Door open')).toBe('Door open');
    expect(headerText('Tür offen')).toBe(`=?UTF-8?B?${Buffer.from('Tür offen').toString('base64')}?=`);
  });

  it('posts the message as body with Title, Priority, Tags, Click and the token as Bearer', () => {
    const target = { channel: 'ntfy' as const, name: 'ntfy.sh/alerts', url: 'https://ntfy.sh/alerts', token: TOKEN };
    const message = {
      title: 'Smoke',
      message: 'Kitchen',
      priority: 2 as const,
      url: 'https://cam.lan/k',
      emergency: { retry: 60, expire: 600, tags: 'fire,kitchen' },
    };
    expect(ntfyRequest(target, message)).toEqual({
      url: 'https://ntfy.sh/alerts',
      body: 'Kitchen',
      headers: {
        'Content-Type': 'text/plain; charset=utf-8',
        Title: 'Smoke',
        Priority: '5',
        Tags: 'fire,kitchen',
        Click: 'https://cam.lan/k',
        Authorization: `Bearer ${TOKEN}`,
      },
    });
    expect(ntfyRequest({ channel: 'ntfy', name: 'ntfy.sh/alerts', url: 'https://ntfy.sh/alerts' }, { title: '', message: 'm', priority: 0 }).headers).toEqual({
      'Content-Type': 'text/plain; charset=utf-8',
      Priority: '3',
    });
  });
});
