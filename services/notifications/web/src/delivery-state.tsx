import { localTime, timeFromNow } from '@homeops/web-kit';
import type { Notification } from './types.js';

/** A delivery's status as the cards say it, with its badge tone. */
export function deliveryText({ delivery }: Notification): { text: string; tone: string } {
  switch (delivery.status) {
    case 'sent':
      return { text: 'Sent', tone: 'ok' };
    case 'pending':
      return { text: `Pending, next try ${timeFromNow(delivery.nextAttemptAt)}`, tone: 'warn' };
    case 'failed':
      return { text: `Failed: ${delivery.error ?? 'no reason given'}`, tone: 'bad' };
    case 'expired':
      return { text: 'Expired: too old to send', tone: 'warn' };
    case 'cancelled':
      return { text: 'Not sent: its escalation chain ended first', tone: '' };
    case 'unknown':
      return { text: 'May be ringing: no answer from Pushover; not resent. Resend it if it did not arrive', tone: 'warn' };
    default:
      return { text: 'Not sent (no push provider configured)', tone: 'warn' };
  }
}

const CHANNEL_NAME: Record<string, string> = { pushover: 'Pushover', ntfy: 'ntfy', email: 'Mail' };
const CHANNEL_TONE: Record<string, string> = { sent: 'ok', failed: 'bad', pending: 'warn', unknown: 'warn', expired: 'warn', cancelled: '' };

/** Each channel a recipient with fallback targets was reached through (Pushover first); nothing for others. */
export function Channels({ n }: { n: Notification }) {
  const channels = 'channels' in n.delivery ? n.delivery.channels : undefined;
  if (!channels || channels.length === 0) return null;
  return (
    <ul class="channels" aria-label="Channels">
      {channels.map((c) => (
        <li key={`${c.channel} ${c.target ?? ''}`}>
          {CHANNEL_NAME[c.channel] ?? c.channel}
          {c.target ? ` (${c.target})` : ''}: <span class={`badge ${CHANNEL_TONE[c.status] ?? 'warn'}`}>{c.status}</span>
          <span class="muted">
            {' '}
            {c.attempts} {c.attempts === 1 ? 'attempt' : 'attempts'}, {timeFromNow(c.at)}
            {c.error ? ` · ${c.error}` : ''}
          </span>
        </li>
      ))}
    </ul>
  );
}

/** Where an emergency's alarm stands; null for other priorities and alarms that never started. */
export function alarmText({ priority, emergency: e, delivery }: Notification): { text: string; tone: string } | null {
  if (priority !== 2 || !e) return null;
  if (e.acknowledgedAt) {
    const device = e.acknowledgedByDevice ? ` on device ${e.acknowledgedByDevice}` : '';
    return { text: `Acknowledged by ${e.acknowledgedBy ?? 'someone'}${device} at ${localTime(e.acknowledgedAt)}`, tone: 'ok' };
  }
  if (e.expiredAt) return { text: 'Alarm expired unacknowledged', tone: 'bad' };
  if (e.cancelledAt) return { text: 'Alarm cancelled (read here)', tone: '' };
  return delivery.status === 'sent' ? { text: `Ringing (repeats every ${e.retry}s)`, tone: 'warn' } : null;
}
