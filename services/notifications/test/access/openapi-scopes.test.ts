import { routeTableOf, SCOPES } from '@homeops/common';
import { describe, expect, it } from 'vitest';
import { buildKeyedApp, send } from './access-kit.js';

interface Operation {
  'x-required-scope'?: string;
  security?: Array<Record<string, string[]>>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes?: Record<string, unknown> };
}

describe('GET /openapi.json of notifications', () => {
  it('names the required scope (x-required-scope) and the security schemes of every operation, as the route table says', async () => {
    const t = await buildKeyedApp();
    const doc = (await send(t.port, { method: 'GET', target: '/openapi.json' })).json as OpenApiDocument;
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ key: `${method} ${path}`, op })),
    );
    // /metrics is served beside the API (Prometheus text) and is in the route table, not in the document.
    const table = routeTableOf(t.app).filter((entry) => entry.path !== '/metrics');

    expect(Object.keys(doc.components.securitySchemes ?? {}).sort()).toEqual(['apiKey', 'bearer']);
    expect(operations.map(({ key }) => key).sort()).toEqual(table.map((entry) => `${entry.method} ${entry.path}`).sort());
    for (const { key, op } of operations) {
      const entry = table.find((e) => `${e.method} ${e.path}` === key)!;
      expect(op['x-required-scope'], key).toBe(entry.access);
      expect(['public', 'authenticated', ...SCOPES], key).toContain(op['x-required-scope']);
      expect(op.security, key).toEqual(entry.access === 'public' ? [] : [{ bearer: [] }, { apiKey: [] }]);
    }
    // Each notifications scope guards some operation.
    const required = new Set(operations.map(({ op }) => op['x-required-scope']));
    for (const scope of ['admin', 'notifications:send', 'notifications:read', 'authenticated', 'public']) expect(required, scope).toContain(scope);
  });
});
