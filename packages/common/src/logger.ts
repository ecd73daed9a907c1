import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

const SECRET_KEYS = [
  'password',
  'passwd',
  'token',
  'key',
  'secret',
  'authorization',
  'userKey',
  'user_key',
  'apiToken',
  'api_token',
  'apiKey',
  'api_key',
  'x-api-key',
  'cookie',
];

/** Paths pino censors: every secret-looking key at the top level and up to two levels deep. */
export const REDACT_PATHS = SECRET_KEYS.flatMap((k) => {
  const key = /^[A-Za-z_$][\w$]*$/.test(k) ? k : `["${k}"]`;
  const join = (prefix: string) => (key.startsWith('[') ? `${prefix}${key}` : `${prefix}.${key}`);
  return [key.startsWith('[') ? key.slice(2, -2) : key, join('*'), join('*.*')];
}).concat(['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie']);

export interface LoggerOptions {
  service: string;
  level?: LevelWithSilent;
  /** Where lines go; stdout when omitted. Tests pass a capturing stream. */
  destination?: DestinationStream;
}

/** A structured JSON logger that censors secrets wherever they appear as a field. */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { service: options.service },
    },
    options.destination ?? pino.destination({ sync: false }),
  );
}
