import { isoNow, systemClock, type Clock } from '@homeops/common';
import type { FallbackChannels, FallbackTarget, FallbackTargetStatus } from '../../domain/fallback.js';
import type { PushMessage } from '../../domain/push-provider.js';
import type { FallbackSpec } from './fallback-target.js';
import { MailSender, smtpSecrets, type MailSettings } from './mail-sender.js';
import { ntfyRequest } from './ntfy-request.js';

/** What the fallback senders need: each alias's targets, the mail settings (when set) and a bound on one send. */
export interface FallbackSendersOptions {
  targets: Map<string, FallbackSpec[]>;
  mail?: MailSettings | undefined;
  timeoutMs: number;
  clock?: Clock;
}

/** Sends to ntfy topics and mailboxes; remembers each target's last result for /health; no token in any text. */
export class FallbackSenders implements FallbackChannels {
  readonly #targets: Map<string, FallbackSpec[]>;
  readonly #mail: MailSender | undefined;
  readonly #timeoutMs: number;
  readonly #clock: Clock;
  readonly #secrets: string[];
  readonly #last = new Map<string, FallbackTargetStatus>();

  constructor(options: FallbackSendersOptions) {
    this.#targets = options.targets;
    this.#timeoutMs = options.timeoutMs;
    this.#clock = options.clock ?? systemClock;
    const needsMail = [...options.targets].find(([, specs]) => specs.some((s) => s.channel === 'email'));
    if (needsMail && !options.mail) throw new Error(`recipient "${needsMail[0]}" has a mailto: fallback, so SMTP_URL and SMTP_FROM must be set`);
    this.#mail = needsMail && options.mail ? new MailSender(options.mail) : undefined;
    const tokens = [...options.targets.values()].flat().flatMap((s) => (s.channel === 'ntfy' && s.token ? [s.token] : []));
    this.#secrets = [...tokens, ...(options.mail ? smtpSecrets(options.mail.url) : [])];
    for (const [recipient, specs] of options.targets) {
      for (const { channel, name } of specs) this.#last.set(`${recipient}\0${name}`, { recipient, channel, name, lastResult: null, at: null });
    }
  }

  targetsOf(alias: string): FallbackTarget[] {
    return (this.#targets.get(alias) ?? []).map(({ channel, name }) => ({ channel, name }));
  }

  async send(alias: string, target: FallbackTarget, message: PushMessage): Promise<void> {
    const spec = this.#targets.get(alias)?.find((s) => s.name === target.name);
    if (!spec) throw new Error(`${target.name} is no longer a fallback of recipient "${alias}"`);
    const key = `${alias}\0${spec.name}`;
    try {
      if (spec.channel === 'ntfy') await this.#ntfy(spec, message);
      else await this.#mail!.send(spec, message);
      this.#last.set(key, { recipient: alias, channel: spec.channel, name: spec.name, lastResult: 'sent', at: isoNow(this.#clock) });
    } catch (err) {
      const error = this.#redact(`${spec.channel === 'ntfy' ? 'ntfy' : 'mail'} to ${spec.name}: ${err instanceof Error ? err.message : String(err)}`);
      this.#last.set(key, { recipient: alias, channel: spec.channel, name: spec.name, lastResult: 'failed', at: isoNow(this.#clock), error });
      throw new Error(error);
    }
  }

  status(): FallbackTargetStatus[] {
    return [...this.#last.values()].map((s) => ({ ...s }));
  }

  stop(): void {
    this.#mail?.close();
  }

  async #ntfy(spec: Extract<FallbackSpec, { channel: 'ntfy' }>, message: PushMessage): Promise<void> {
    const { url, headers, body } = ntfyRequest(spec, message);
    const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(this.#timeoutMs), redirect: 'error' });
    const text = await response.text().catch(() => '');
    if (!response.ok) throw new Error(`HTTP ${response.status}${text ? `: ${text.slice(0, 200).trim()}` : ''}`);
  }

  #redact(text: string): string {
    return this.#secrets.reduce((out, secret) => out.split(secret).join('[redacted]'), text);
  }
}
