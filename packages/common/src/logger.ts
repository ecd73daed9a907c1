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

// One asynchronous standard output per process, shared by every logger, so lines never interleave mid-line; pino
// flushes it synchronously on exit.
let stdout: DestinationStream | undefined;

const SCALAR_TWIN = Symbol('homeops.scalarTwin');

/** A structured JSON logger that censors secrets wherever they appear as a field. */
export function createLogger(options: LoggerOptions): Logger {
  const destination = options.destination ?? (stdout ??= pino.destination({ sync: false }));
  const base = { service: options.service };
  const logger = pino({ level: options.level ?? 'info', redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base }, destination);
  // pino's redactor walks every redact path for every field of every line, scalars included: on the access log that
  // cost more than a request's handler. Lines of scalars under fixed non-secret keys cannot change under redaction,
  // so they may go through this unredacted twin writing the same format to the same stream (see scalarLogger).
  Object.defineProperty(logger, SCALAR_TWIN, { value: pino({ level: 'trace', base }, destination) });
  return logger;
}

/**
 * For lines whose fields are all scalars under keys that are not secret (nothing redaction would touch): a logger
 * that writes exactly what `logger` would, without the redaction pass, if `logger` was made by createLogger
 * (not a child of it); else `logger` itself. Callers check `logger.isLevelEnabled` first: the twin logs every level.
 */
export function scalarLogger(logger: Logger): Logger {
  return Object.prototype.hasOwnProperty.call(logger, SCALAR_TWIN) ? (logger as Logger & { [SCALAR_TWIN]: Logger })[SCALAR_TWIN] : logger;
}
