import type { PushMessage } from '../../domain/push-provider.js';
import type { NtfyTarget } from './fallback-target.js';

/** Pushover's priority (-2..2) as ntfy's (1 min .. 5 max). */
export function ntfyPriority(priority: PushMessage['priority']): number {
  return priority + 3;
}

/** A header value in ASCII: a non-ASCII text as an RFC 2047 encoded word, which ntfy decodes. */
export function headerText(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return text;
  return `=?UTF-8?B?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

/** The POST ntfy documents for publishing: the message as body, the rest as headers. */
export function ntfyRequest(target: NtfyTarget, message: PushMessage): { url: string; headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = { 'Content-Type': 'text/plain; charset=utf-8', Priority: String(ntfyPriority(message.priority)) };
  if (message.title) headers.Title = headerText(message.title);
  const tags = message.emergency?.tags;
  if (tags) headers.Tags = headerText(tags);
  const click = message.url === undefined ? undefined : URL.parse(message.url)?.href;
  if (click) headers.Click = click;
  if (target.token) headers.Authorization = `Bearer ${target.token}`;
  return { url: target.url, headers, body: message.message };
}
