import type { ErrorCode } from '@homeops/common';
import { documentedErrorCodes, undocumentedErrors, type OpenApiResponses } from '@homeops/test-kit';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../support/test-app.js';

/** What a device route's lookup and cloud call raise (DeviceService, the message budget, the cloud adapter). */
const DEVICE_CALL: readonly ErrorCode[] = [
  'DEVICE_NOT_FOUND',
  'DEVICE_NOT_CONTROLLABLE',
  'COMMAND_BUDGET_EXHAUSTED',
  'CLOUD_ERROR',
  'CLOUD_UNAVAILABLE',
  'CLOUD_TIMEOUT',
];
const CLOUD_CALL: readonly ErrorCode[] = ['COMMAND_BUDGET_EXHAUSTED', 'CLOUD_ERROR', 'CLOUD_UNAVAILABLE', 'CLOUD_TIMEOUT'];

async function openApiDocument(): Promise<OpenApiResponses> {
  const t = await buildTestApp({ start: false });
  try {
    return (await request(t.app).get('/openapi.json')).body as OpenApiResponses;
  } finally {
    await t.close();
  }
}

/** Each operation's use-case errors: every route below a device calls the cloud for it; the rest are listed. */
function raisedBy(document: OpenApiResponses): Record<string, readonly ErrorCode[]> {
  const raised: Record<string, readonly ErrorCode[]> = {
    'GET /devices/{uuid}': ['DEVICE_NOT_FOUND'],
    'POST /devices/sync': [...CLOUD_CALL, 'SYNC_TOO_SOON'],
    'POST /cloud/login': ['MFA_CODE_REJECTED', 'CLOUD_LOGIN_NOT_NEEDED', 'CLOUD_UNAVAILABLE', 'CLOUD_TIMEOUT'],
    'GET /events': ['TOO_MANY_STREAMS'],
  };
  for (const [path, operations] of Object.entries(document.paths)) {
    if (!path.startsWith('/devices/{uuid}/')) continue;
    for (const method of Object.keys(operations)) raised[`${method.toUpperCase()} ${path}`] = DEVICE_CALL;
  }
  return raised;
}

describe('GET /openapi.json: the errors of each route', () => {
  it('documents only codes of the error table, each at its status', async () => {
    // documentedErrorCodes throws on an error text that no code of ERROR_TABLE has at that status.
    expect(documentedErrorCodes(await openApiDocument()).get('POST /devices/{uuid}/toggle')).toContain('DEVICE_NOT_FOUND');
  });

  it('documents every code its use-case and body reader raise', async () => {
    const document = await openApiDocument();
    expect(undocumentedErrors(document, raisedBy(document))).toEqual([]);
  });
});
