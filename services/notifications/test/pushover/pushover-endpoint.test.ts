import { describe, expect, it } from 'vitest';
import { resolveEndpoint } from '../../src/adapters/pushover/pushover-request.js';

describe('resolveEndpoint', () => {
  it("points at Pushover's messages endpoint over https on port 443 by default", () => {
    expect(resolveEndpoint('https://api.pushover.net')).toEqual({
      protocol: 'https:',
      hostname: 'api.pushover.net',
      port: 443,
      host: 'api.pushover.net',
      path: '/1/messages.json',
      href: 'https://api.pushover.net/1/messages.json',
      prefix: '',
    });
  });

  it('keeps a plain-http host, port and path prefix, with or without a trailing slash', () => {
    for (const url of ['http://10.0.0.5:8080/pushover', 'http://10.0.0.5:8080/pushover/']) {
      expect(resolveEndpoint(url)).toMatchObject({
        protocol: 'http:',
        hostname: '10.0.0.5',
        port: 8080,
        host: '10.0.0.5:8080',
        path: '/pushover/1/messages.json',
        prefix: '/pushover',
      });
    }
  });

  it('unbrackets an IPv6 literal for the connection but keeps it bracketed in the Host header', () => {
    expect(resolveEndpoint('http://[::1]:9000')).toMatchObject({ hostname: '::1', host: '[::1]:9000', port: 9000 });
  });

  it.each(['ftp://example.com', 'not a url', 'file:///tmp/x'])('refuses %s', (url) => {
    expect(() => resolveEndpoint(url)).toThrow();
  });
});
