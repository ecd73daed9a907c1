// The entry a service's domain imports (the `./core` export): errors and their table, types, zod, the clock,
// timeouts, single-flight and the event replay. Nothing here loads Express, helmet, swagger-ui or pino (`Logger` is
// a type only); test/core-entry.test.ts checks it in a fresh process.
export { z } from './zod.js';
export { AppError, ERROR_TABLE, isAppError, type ErrorCode, type ErrorDetail, type AppErrorOptions } from './errors.js';
export { ErrorBodySchema, type ErrorBody } from './error-body.js';
export { assertJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';
export { withTimeout, TimeoutError } from './timeout.js';
export { EventReplay, type ReplayedEvent } from './event-replay.js';
export * from './clock.js';
export { SingleFlight, KeyedSingleFlight } from './single-flight.js';
export type { Logger } from './logger.js';
