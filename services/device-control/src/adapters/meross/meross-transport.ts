import { TimeoutError, withTimeout, type Clock, type Logger } from '@homeops/common';
import { CloudCallError } from './meross-codes.js';
import type { MerossHttp } from './meross-http.js';
import type { LibraryCallback, LibraryCloud, MerossDeviceDefinition } from './meross-library.js';
import { assertDeviceList } from './meross-payloads.js';
import type { SecretRedactor } from './meross-secrets.js';

export const DEVICE_LIST_PATH = '/v1/Device/devList';

/** What the adapter learns from the API calls the library makes. */
export interface TransportHooks {
  log: Logger;
  redactor: SecretRedactor;
  /** The account moved to another region (the library's domains are already updated). */
  onMoved: () => void;
}

/** The installed transport: what it learnt that the library does not hand back. */
export interface Transport {
  /** The checked device list of the last devList answer, captured before the library saw it; once. */
  takeDeviceList(): MerossDeviceDefinition[] | null;
}

/**
 * Routes meross-cloud's HTTP calls through MerossHttp; the library still builds the login and handles the answers.
 * Its own transport logs secrets, throws on a 1030 without data and reports a failed device list as an empty one.
 */
export function installTransport(lib: LibraryCloud, http: MerossHttp, hooks: TransportHooks): Transport {
  let captured: MerossDeviceDefinition[] | null = null;
  const deliver = (callback: LibraryCallback<unknown>, error: Error | null, data?: unknown) => {
    try {
      callback(error, data);
    } catch (fault) {
      // Whatever the library throws while handling an answer is logged, never left to crash the process.
      hooks.log.error({ error: hooks.redactor.describe(fault) }, 'meross-cloud failed while handling an API answer');
    }
  };
  lib.authenticatedPost = (endpoint: string, params: unknown, callback: LibraryCallback<unknown>) => {
    http
      .post(lib.httpDomain, endpoint, lib.token, params)
      .then((result) => {
        if (result.movedTo) {
          hooks.log.info({ path: endpoint }, 'meross cloud redirected the account to another region');
          lib.httpDomain = result.movedTo.host;
          if (result.movedTo.mqttDomain) lib.mqttDomain = result.movedTo.mqttDomain;
          hooks.onMoved();
        }
        if (endpoint !== DEVICE_LIST_PATH) return result.data;
        const list = assertDeviceList(result.data, lib.mqttDomain);
        captured = list;
        return list;
      })
      .then(
        (data) => deliver(callback, null, data),
        (err: unknown) => deliver(callback, err instanceof CloudCallError ? err : new CloudCallError('malformed', null, `${endpoint}: unreadable answer`)),
      );
  };
  return {
    takeDeviceList() {
      const list = captured;
      captured = null;
      return list;
    },
  };
}

/** A callback-style library call as a promise bounded by our own timeout. */
export async function callLibrary(clock: Clock, run: (done: LibraryCallback<number>) => void, ms: number, what: string): Promise<void> {
  const work = new Promise<void>((resolve, reject) => run((err) => (err ? reject(err) : resolve())));
  try {
    await withTimeout(clock, work, ms, what);
  } catch (err) {
    if (err instanceof TimeoutError) throw new CloudCallError('timeout', null, `${what}: no answer within ${ms} ms`);
    throw err;
  }
}
