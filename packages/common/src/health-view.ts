import type { Response } from 'express';
import { keyAccepted } from './auth.js';

/** What every /health answers, whoever asks. */
export interface HealthEnvelope {
  status: 'ok' | 'degraded' | 'error';
  service: string;
  version: string;
}

/** ALLOW_OPEN_LAN's line in /health problems: the service runs without a key on purpose, and says so. */
export const OPEN_LAN_PROBLEM = 'ALLOW_OPEN_LAN is set: the API is open to anyone on the network without a key';

/**
 * Sends a health body: in full to a caller with the key (or when the service has none), else only status, service
 * and version, so paths, pids, versions and recipient names stay with those who may see them.
 */
export function sendHealth(res: Response, httpStatus: number, body: HealthEnvelope & Record<string, unknown>): void {
  const view = keyAccepted(res) === false ? { status: body.status, service: body.service, version: body.version } : body;
  res.status(httpStatus).json(view);
}
