const units: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
];
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** "3 minutes ago", "in 20 seconds"; null as "never". */
export function timeFromNow(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const diff = Date.parse(iso) - now;
  if (Number.isNaN(diff)) return 'unknown';
  for (const [unit, ms] of units) {
    if (Math.abs(diff) >= ms || unit === 'second') return relative.format(Math.round(diff / ms), unit);
  }
  return iso;
}

/** The local date and time, for a title attribute. */
export function localTime(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '';
}
