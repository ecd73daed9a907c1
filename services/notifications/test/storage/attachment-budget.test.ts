import { readdir } from 'node:fs/promises';
import { ERROR_TABLE } from '@homeops/common';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { FileAttachmentStore } from '../../src/adapters/storage/file-attachment.store.js';
import { nodeStorageFs } from '../../src/adapters/storage/storage-fs.js';
import { pngOfSize } from '../support/files.js';
import { buildTestApp, makeTempDir } from '../support/test-app.js';

const BUDGET = 1000;
const png = (bytes: number) => ({ filename: 'door.png', contentType: 'image/png', data: pngOfSize(bytes).toString('base64') });
const create = (bytes: number) => ({ recipient: 'ops', title: 'Camera', message: 'Motion at the door', attachment: png(bytes) });

describe('POST /notifications with the attachment budget spent (ATTACHMENTS_MAX_BYTES)', () => {
  it('returns 507 in the common error body, stores nothing, and accepts the attachment again once a delete made room', async () => {
    const dir = await makeTempDir();
    const { app, repository } = await buildTestApp({ attachments: new FileAttachmentStore(dir, nodeStorageFs, { maxBytes: BUDGET }) });
    const first = await request(app).post('/notifications').send(create(400));
    await request(app).post('/notifications').send(create(400)).expect(201);

    const refused = await request(app).post('/notifications').send(create(400));

    expect(first.status).toBe(201);
    expect(refused.status).toBe(507);
    expect(refused.body).toEqual({
      error: 'Attachment storage is full: the budget is 1000 bytes (ATTACHMENTS_MAX_BYTES), 800 are in use and this attachment has 400',
      solution: ERROR_TABLE.STORAGE_FULL.solution,
      code: 'STORAGE_FULL',
    });
    expect((await repository.stats()).records).toBe(2);
    expect(await readdir(dir)).toHaveLength(2);

    await request(app).delete(`/notifications/${first.body.id}`).expect(204);
    await request(app).post('/notifications').send(create(400)).expect(201);
    expect((await repository.stats()).records).toBe(2);
  });
});
