import type { FallbackTarget } from '../../domain/fallback.js';

/** An ntfy topic: where to POST, and the access token sent as `Authorization: Bearer` (never shown). */
export interface NtfyTarget extends FallbackTarget {
  channel: 'ntfy';
  url: string;
  token?: string;
}

/** A mailbox reached through SMTP_URL. */
export interface EmailTarget extends FallbackTarget {
  channel: 'email';
  address: string;
}

export type FallbackSpec = NtfyTarget | EmailTarget;

const TOPIC = /^[-_A-Za-z0-9]{1,64}$/;
const ADDRESS = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;

/**
 * One `fallback:` entry: `ntfy+https://host/topic`, `ntfy+http://host/topic` (optional `?token=…`) or
 * `mailto:alice@example.com`. Throws a text that never contains the token.
 */
export function parseFallbackTarget(text: string): FallbackSpec {
  const value = text.trim();
  if (/^mailto:/i.test(value)) {
    const address = decodeURIComponent(value.slice('mailto:'.length));
    if (!ADDRESS.test(address)) throw new Error('a mailto: target needs one e-mail address (mailto:alice@example.com)');
    return { channel: 'email', name: address, address };
  }
  if (!/^ntfy\+https?:\/\//i.test(value)) throw new Error('a fallback target is ntfy+https://host/topic, ntfy+http://host/topic or mailto:address');
  let url: URL;
  try {
    url = new URL(value.slice('ntfy+'.length));
  } catch {
    throw new Error('the ntfy target is not a valid URL (ntfy+https://host/topic)');
  }
  if (url.username || url.password) throw new Error('the ntfy target takes its access token as ?token=…, not in the address');
  const parts = url.pathname.split('/').filter((p) => p !== '');
  const topic = parts.at(-1);
  if (topic === undefined || !TOPIC.test(topic)) throw new Error('the ntfy target needs a topic (letters, digits, - and _, up to 64) after the host');
  const extra = [...url.searchParams.keys()].filter((k) => k !== 'token');
  if (extra.length > 0 || url.hash) throw new Error(`the ntfy target takes only ?token=… (found ${extra.join(', ') || 'a #fragment'})`);
  const token = url.searchParams.get('token') ?? undefined;
  if (token === '') throw new Error('the ntfy target has an empty ?token=');
  url.search = '';
  const name = `${url.host}${url.pathname.replace(/\/$/, '')}`;
  return { channel: 'ntfy', name, url: url.toString().replace(/\/$/, ''), ...(token === undefined ? {} : { token }) };
}

/** The `fallback:` value of one recipient: a target or a list of them, each at most once. */
export function parseFallbackList(value: unknown): FallbackSpec[] {
  const list = Array.isArray(value) ? value : [value];
  const specs = list.map((entry) => {
    if (typeof entry !== 'string') throw new Error('fallback lists targets as text (ntfy+https://host/topic or mailto:address)');
    return parseFallbackTarget(entry);
  });
  const names = specs.map((s) => s.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw new Error(`fallback lists ${twice} twice`);
  return specs;
}
