import { createLogger } from '@homeops/common';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

describe('GET /health', () => {
  it('reports the service name and the spec version 1.0.1', async () => {
    const app = createApp({ logger: createLogger({ service: 'test', level: 'silent' }) }, { API_KEY: undefined });
    const res = await request(app).get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', service: 'device-control', version: '1.0.1' });
    expect(res.body.uptimeSeconds).toEqual(expect.any(Number));
  });
});
