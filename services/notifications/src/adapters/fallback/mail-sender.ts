import { createTransport, type Transporter } from 'nodemailer';
import type { PushMessage } from '../../domain/push-provider.js';
import type { EmailTarget } from './fallback-target.js';

/** Where mail goes out: SMTP_URL (smtp:// or smtps://, with user and password when the server needs them) and SMTP_FROM. */
export interface MailSettings {
  url: string;
  from: string;
  timeoutMs: number;
}

/** The secrets of SMTP_URL, to keep them out of error texts. */
export function smtpSecrets(url: string): string[] {
  try {
    const parsed = new URL(url);
    return [parsed.password, decodeURIComponent(parsed.password)].filter((s) => s.length >= 3);
  } catch {
    return [];
  }
}

/** Sends a notification as a text/plain mail, its title as subject, through one SMTP transport. */
export class MailSender {
  readonly #transport: Transporter;
  readonly #from: string;

  constructor(settings: MailSettings) {
    const url = new URL(settings.url);
    if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error('SMTP_URL must start with smtp:// or smtps://');
    this.#from = settings.from;
    this.#transport = createTransport({
      host: url.hostname,
      port: url.port === '' ? (url.protocol === 'smtps:' ? 465 : 587) : Number(url.port),
      secure: url.protocol === 'smtps:',
      ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
      connectionTimeout: settings.timeoutMs,
      greetingTimeout: settings.timeoutMs,
      socketTimeout: settings.timeoutMs,
    });
  }

  async send(target: EmailTarget, message: PushMessage): Promise<void> {
    const text = message.url ? `${message.message}\n\n${message.url}` : message.message;
    await this.#transport.sendMail({ from: this.#from, to: target.address, subject: message.title || 'Notification', text });
  }

  close(): void {
    this.#transport.close();
  }
}
