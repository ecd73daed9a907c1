import type { Response } from 'express';
import type { Api } from './api.js';
import { keyAccepted } from './auth.js';
import type { ZodRawShape } from 'zod';
import { z } from './zod.js';

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

/** A service's own verdict: `error` when only a person can bring it back (503), its problems, and its details. */
export interface HealthAssessment<D> {
  error: boolean;
  problems: string[];
  details: D;
}

export interface HealthRouteOptions<S extends ZodRawShape> {
  service: string;
  version: string;
  /** Name of the OpenAPI component, e.g. `NotificationsHealth`. */
  schemaName: string;
  summary: string;
  /** The 200 and 503 descriptions. */
  serving: string;
  failing: string;
  /** The fields beside the envelope. */
  details: S;
  startedAt: number;
  /** The clock's time, for the uptime. */
  now: () => number;
  /** ALLOW_OPEN_LAN took effect: listening beyond loopback without a key. */
  openLan?: boolean;
  assess: () => HealthAssessment<z.infer<z.ZodObject<S>>> | Promise<HealthAssessment<z.infer<z.ZodObject<S>>>>;
}

/** GET /health of either service: the one envelope (status, service, version, uptime, problems) around its details. */
export function registerHealthRoute<S extends ZodRawShape>(api: Api, options: HealthRouteOptions<S>): void {
  const schema = z
    .object({
      status: z.enum(['ok', 'degraded', 'error']),
      service: z.string(),
      version: z.string(),
      uptimeSeconds: z.number(),
      problems: z.array(z.string()).openapi({ description: 'Why the status is not ok, one sentence each' }),
      ...options.details,
    })
    .openapi(options.schemaName);
  api.route({
    method: 'get',
    path: '/health',
    summary: options.summary,
    access: 'public',
    tags: ['health'],
    responses: {
      200: { description: `${options.serving}. Without the key (when one is set) only status, service and version`, schema },
      503: { description: options.failing, schema },
    },
    handler: async (_input, _req, res) => {
      const { error, problems, details } = await options.assess();
      if (options.openLan) problems.push(OPEN_LAN_PROBLEM);
      const status = error ? 'error' : problems.length > 0 ? 'degraded' : 'ok';
      sendHealth(res, error ? 503 : 200, {
        status,
        service: options.service,
        version: options.version,
        uptimeSeconds: Math.round((options.now() - options.startedAt) / 1000),
        problems,
        ...details,
      });
    },
  });
}
