import type { ErrorCode } from '@homeops/common';
import { documentedErrorCodes, undocumentedErrors, type OpenApiResponses } from '@homeops/test-kit';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../support/test-app.js';

/** What each operation's use-case (and the body reader in front of it) raises, read from the code that throws. */
const RAISED: Record<string, readonly ErrorCode[]> = {
  'POST /notifications': [
    'RECIPIENT_NOT_MAPPED',
    'STORAGE_FULL',
    'JSON_TOO_DEEP',
    'MALFORMED_JSON',
    'SERVER_BUSY',
    'PAYLOAD_TOO_LARGE',
    'UNSUPPORTED_MEDIA_TYPE',
    'STORAGE_UNAVAILABLE',
  ],
  'GET /notifications/single/{id}': ['NOTIFICATION_NOT_FOUND'],
  'GET /notifications/{recipient}': ['NOTIFICATION_NOT_FOUND'],
  'GET /notifications/single/{id}/attachment': ['NOTIFICATION_NOT_FOUND', 'ATTACHMENT_NOT_FOUND'],
  'POST /notifications/{id}/resend': ['NOTIFICATION_NOT_FOUND', 'NOTIFICATION_NOT_RESENDABLE', 'RECIPIENT_NOT_MAPPED', 'STORAGE_UNAVAILABLE'],
  'DELETE /notifications/{id}': ['NOTIFICATION_NOT_FOUND', 'STORAGE_UNAVAILABLE'],
  'PATCH /notifications/{id}/read': ['NOTIFICATION_NOT_FOUND', 'STORAGE_UNAVAILABLE'],
  'PATCH /notifications/{id}/unread': ['NOTIFICATION_NOT_FOUND', 'STORAGE_UNAVAILABLE'],
  'POST /notifications/{recipient}/read-all': ['STORAGE_UNAVAILABLE'],
  'GET /notifications/{recipient}/stream': ['TOO_MANY_STREAMS'],
  'GET /events': ['TOO_MANY_STREAMS'],
};

async function openApiDocument(): Promise<OpenApiResponses> {
  const res = await request((await buildTestApp({ repository: 'memory' })).app).get('/openapi.json');
  return res.body as OpenApiResponses;
}

describe('GET /openapi.json: the errors of each route', () => {
  it('documents only codes of the error table, each at its status', async () => {
    // documentedErrorCodes throws on an error text that no code of ERROR_TABLE has at that status.
    const documented = documentedErrorCodes(await openApiDocument());
    expect(documented.get('POST /notifications')).toContain('RECIPIENT_NOT_MAPPED');
  });

  it('is refused when a response names an error the table does not have at that status', () => {
    const errorBody = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } };
    const doc = { paths: { '/x': { get: { responses: { '404': { description: 'Route not found; Gone fishing', content: errorBody } } } } } };
    expect(() => documentedErrorCodes(doc)).toThrow('GET /x documents 404 "Gone fishing"');
  });

  it('documents every code its use-case and body reader raise', async () => {
    expect(undocumentedErrors(await openApiDocument(), RAISED)).toEqual([]);
  });
});
