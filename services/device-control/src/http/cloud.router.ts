import { type Api, z } from '@homeops/common';
import type { DeviceService } from '../domain/device.service.js';

/** Body of POST /cloud/login. */
export const MfaLoginBodySchema = z
  .object({
    mfaCode: z.string().regex(/^\d{6}$/, 'must be the 6-digit code of the authenticator app'),
  })
  .openapi('MfaLoginRequest');

const MfaLoginResultSchema = z.object({ state: z.literal('connected') }).openapi('MfaLoginResult');

/** POST /cloud/login: the one way back for an MFA account whose session expired, without a restart. */
export function registerCloudRoutes(api: Api, devices: DeviceService): void {
  api.route({
    method: 'post',
    path: '/cloud/login',
    summary: 'Log in once with the current MFA code (only while /health says the session needs one)',
    access: 'admin',
    tags: ['cloud'],
    body: MfaLoginBodySchema,
    responses: { 200: { description: 'Logged in; the token is saved', schema: MfaLoginResultSchema } },
    errors: [
      'MFA_CODE_REJECTED',
      'CLOUD_LOGIN_NOT_NEEDED',
      'CLOUD_UNAVAILABLE',
      'CLOUD_TIMEOUT',
      'COMMAND_BUDGET_EXHAUSTED',
      'MALFORMED_JSON',
      'JSON_TOO_DEEP',
      'PAYLOAD_TOO_LARGE',
    ],
    handler: async ({ body }, _req, res) => {
      await devices.submitMfaCode(body.mfaCode);
      res.json({ state: 'connected' });
    },
  });
}
