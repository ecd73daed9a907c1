import type { Watch } from './types.js';

/** "30 minutes", "1 minute", "3 seconds" (a watch's minutes may be a fraction). */
export function minutesText(minutes: number): string {
  if (minutes < 1) return `${Math.round(minutes * 60)} seconds`;
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** A watch's condition as a sentence, with the device's name: "Garage Door open longer than 30 minutes". */
export function conditionText(condition: Watch['condition'], deviceName: string): string {
  switch (condition.kind) {
    case 'doorOpen':
      return `${deviceName}${condition.channel ? ` door ${condition.channel}` : ''} open longer than ${minutesText(condition.minutes)}`;
    case 'offline':
      return `${deviceName} offline longer than ${minutesText(condition.minutes)}`;
    case 'powerBelow': {
      const after = condition.afterAbove !== undefined ? `, after above ${condition.afterAbove} W` : '';
      return `${deviceName} below ${condition.watts} W for ${minutesText(condition.minutes)}${after}`;
    }
    case 'batteryBelow':
      return `${condition.sensor} on ${deviceName}: battery below ${condition.percent} %`;
    case 'temperature': {
      const bound = condition.above !== undefined ? `above ${condition.above}` : `below ${condition.below}`;
      return `${condition.sensor} on ${deviceName} ${bound} °C for ${minutesText(condition.minutes)}`;
    }
    case 'leak':
      return `${condition.sensor} on ${deviceName} finds water`;
    case 'smoke':
      return `${condition.sensor} on ${deviceName} rings (smoke or heat)`;
    case 'open':
      return `${condition.sensor} on ${deviceName} open longer than ${minutesText(condition.seconds / 60)}`;
  }
}

/** Where a watch's episode stands, in words, with the badge's tone. */
export const STATE_TEXT: Record<Watch['state'], { text: string; tone: string }> = {
  quiet: { text: 'quiet', tone: 'ok' },
  holding: { text: 'holding: true, not long enough yet', tone: 'warn' },
  firing: { text: 'firing: notified', tone: 'bad' },
  clearing: { text: 'clearing: false, not long enough yet', tone: 'warn' },
};

/** The notification's priorities, as the notification service names them. */
export const PRIORITIES = [
  [-2, 'Lowest (no alert)'],
  [-1, 'Low (quiet)'],
  [0, 'Normal'],
  [1, 'High'],
  [2, 'Emergency (rings until cleared)'],
] as const;
