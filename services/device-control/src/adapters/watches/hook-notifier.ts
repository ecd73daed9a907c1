import type { WatchNotifier, WatchSignal } from '../../domain/watches/device-watches.js';

export interface HookNotifierOptions {
  /** The notification service, e.g. http://notifications:9095. */
  url: string;
  /** A notifications:send token (or its API key); never logged. */
  token: string | undefined;
  timeoutMs: number;
}

/**
 * Sends a watch's episodes to the notification service's generic webhook: the episode is the alert's identity, so
 * its end ("resolved") cancels the emergency the firing rang there, and a repeated firing never rings twice. The id
 * is random per episode, and only this token (the sender that fired it) or an admin may resolve it there.
 */
export class HookNotifier implements WatchNotifier {
  constructor(private readonly options: HookNotifierOptions) {}

  async send(signal: WatchSignal): Promise<void> {
    const url = `${this.options.url.replace(/\/$/, '')}/hooks/generic?recipient=${encodeURIComponent(signal.recipient)}`;
    const body = {
      id: `watch-${signal.watch}-${signal.episode}`,
      status: signal.state,
      title: signal.title,
      message: signal.message,
      priority: signal.priority,
      ...(signal.sound ? { sound: signal.sound } : {}),
      ...(signal.escalate ? { escalate: signal.escalate } : {}),
    };
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    if (res.ok) return;
    const answer = (await res.json().catch(() => ({}))) as { error?: string };
    throw new Error(`the notification service answered ${res.status}${answer.error ? `: ${answer.error}` : ''}`);
  }
}
