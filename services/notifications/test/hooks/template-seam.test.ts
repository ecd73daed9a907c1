import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import Mustache from 'mustache';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { anyJsonField } from '@homeops/test-kit';
import { VIEW_ITEMS_MAX } from '../../src/adapters/hooks/bounded-view.js';
import { RENDER_STEPS_MAX } from '../../src/adapters/hooks/bounded-writer.js';
import { BUILT_IN_TEMPLATES } from '../../src/adapters/hooks/built-in-templates.js';
import { buildTestApp, makeTempDir, type TestApp } from '../support/test-app.js';

// The seam between webhooks and templates: any JSON a tool (or a send-only token) can post, through every built-in
// template and a user template full of sections, over the real route. Never a 500, the common error body, every
// stored field within Pushover's limits, and rendering work bounded (Mustache lookups, counted) whatever the values.

// Sections over the same values, nested (printing nothing, so only the step budget stops them); triple and ampersand forms; the current item; prototype names as lookups.
const SECTIONS_TEMPLATE = {
  title: '{{#labels}}{{#instance}}{{.}} {{instance}} {{/instance}}{{/labels}}{{^labels}}{{title}}{{/labels}}',
  message:
    'From sections: {{#items}}{{#items}}{{#items}}{{absent}}{{/items}}{{/items}}{{/items}}{{items}} {{{message}}} {{&msg}} {{toString}}{{constructor}}' +
    '{{#root.alerts}}{{labels.instance}}{{#labels.instance}}{{labels.instance}}{{/labels.instance}}{{/root.alerts}}',
  url: '{{#url}}{{url}}{{/url}}',
  urlTitle: '{{#title}}{{title}}{{title}}{{/title}}',
  sound: '{{sound}}',
  identity: '{{#id}}{{id}}{{/id}}{{id.length}}',
};
const TEMPLATES = [...Object.keys(BUILT_IN_TEMPLATES), 'sections'];
const FIELD_CAPS = { title: 250, message: 1024, url: 512, urlTitle: 100 } as const;

// Names the templates read, and names that reach Object.prototype when looked up with `in`.
const KEYS = [
  ...['__proto__', 'toString', 'constructor', 'valueOf', 'hasOwnProperty', 'length', 'root', '.'],
  ...['alerts', 'labels', 'instance', 'alertname', 'grafana_folder', 'severity', 'annotations', 'summary', 'description'],
  ...['status', 'fingerprint', 'generatorURL', 'dashboardURL', 'valueString', 'monitor', 'heartbeat', 'name', 'msg'],
  ...['title', 'message', 'priority', 'url', 'sound', 'id', 'items', 'recipient'],
];
const json = (value: unknown) => JSON.stringify(value);
const objectText = (entries: Array<[string, string]>) => `{${entries.map(([k, v]) => `${json(k)}:${v}`).join(',')}}`;
const arrayText = (items: string[]) => `[${items.join(',')}]`;

// Bodies are built as JSON text, so `__proto__` arrives as the key a tool sends (JSON.parse makes it an own key).
const leaf = fc.oneof(
  { arbitrary: anyJsonField.map(json), weight: 4 },
  fc.constantFrom('null', 'true', 'false', '0', '-1', '2', '1e308', '""', '"critical"', '"resolved"', '{"toString":1}', '{"valueOf":{}}', '[]', '{}'),
  fc.integer({ min: 1_000, max: 20_000 }).map((n) => json('x'.repeat(n))),
  fc.constantFrom('{{title}}', '<b>&amp;</b>', '\u202etxt.bat', 'http://a.lan/x', 'javascript:alert(1)').map(json),
);
// Wide arrays of one small value, under the 100 KB JSON limit (an array bomb is 16,000 items of 6 bytes).
const wide = fc
  .tuple(fc.integer({ min: VIEW_ITEMS_MAX, max: 16_000 }), fc.constantFrom('"a"', '1', 'null', '{"toString":1}', '[1]', '"nas:9100"'))
  .map(([n, item]) => arrayText(Array.from({ length: Math.min(n, Math.floor(30_000 / (item.length + 1))) }, () => item)));
const { node } = fc.letrec<{ node: string; array: string; object: string }>((tie) => ({
  node: fc.oneof({ maxDepth: 8, depthIdentifier: 'json' }, { arbitrary: leaf, weight: 6 }, tie('array'), tie('object'), wide),
  array: fc.array(tie('node'), { maxLength: 6 }).map(arrayText),
  object: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 6 })), tie('node')), { maxLength: 6 }).map(objectText),
}));
const entry = (names: readonly string[]) => fc.tuple(fc.constantFrom(...names), node);
const labels = fc.array(entry(['instance', 'alertname', 'grafana_folder', 'severity', '__proto__', 'toString']), { maxLength: 4 }).map(objectText);
const alert = fc.tuple(labels, fc.array(entry(KEYS), { maxLength: 5 })).map(([l, rest]) => objectText([['labels', l], ...rest]));
const alertsBody = fc
  .tuple(fc.array(alert, { minLength: 1, maxLength: 4 }), fc.array(entry(KEYS), { maxLength: 4 }))
  .map(([alerts, rest]) => objectText([['alerts', arrayText(alerts)], ...rest]));
// The generic and Uptime Kuma shapes, with a message most of the time so the call reaches the priority and the link.
const toolBody = fc
  .tuple(fc.oneof(fc.string({ minLength: 1, maxLength: 30 }).map(json), node), fc.array(entry(KEYS), { maxLength: 6 }))
  .map(([message, rest]) => objectText([['message', message], ['msg', message], ...rest]));
const body = fc.oneof({ arbitrary: alertsBody, weight: 3 }, { arbitrary: toolBody, weight: 3 }, fc.array(entry(KEYS), { maxLength: 8 }).map(objectText), node);

let t: TestApp;
let lookups = 0;
beforeEach(async () => {
  const file = join(await makeTempDir(), 'hooks.json');
  await writeFile(file, JSON.stringify({ templates: { sections: SECTIONS_TEMPLATE } }));
  t = await buildTestApp({ repository: 'memory', config: { HOOK_TEMPLATES_FILE: file } });
  lookups = 0;
  const lookup = Mustache.Context.prototype.lookup;
  vi.spyOn(Mustache.Context.prototype, 'lookup').mockImplementation(function (this: Mustache.Context, name: string) {
    lookups++;
    return lookup.call(this, name) as unknown;
  });
});
afterEach(() => vi.restoreAllMocks());

/** Posts `text` to a template; asserts the answer's shape, the stored fields' caps and the work it took. */
async function postHook(template: string, text: string): Promise<request.Response> {
  lookups = 0;
  const res = await request(t.app).post(`/hooks/${template}?recipient=ops`).set('Content-Type', 'application/json').send(text);
  const context = `${template} with ${text.length} bytes: ${text.slice(0, 200)}`;
  expect([200, 201, 400, 413], `${context}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`).toContain(res.status);
  if (res.status >= 400)
    expect(res.body, context).toMatchObject({ error: expect.any(String), solution: expect.any(String), code: expect.stringMatching(/^[A-Z_]+$/) });
  else expect(res.body, context).toMatchObject({ created: expect.any(Array), cancelled: expect.any(Array), alreadyRinging: expect.any(Number) });
  for (const id of (res.body.created ?? []) as string[]) {
    const record = (await t.repository.get(id))!;
    for (const [field, cap] of Object.entries(FIELD_CAPS)) {
      expect(((record as unknown as Record<string, string | undefined>)[field] ?? '').length, `${context}: ${field}`).toBeLessThanOrEqual(cap);
    }
  }
  expect(lookups, `${context}: Mustache lookups`).toBeLessThanOrEqual(RENDER_STEPS_MAX);
  return res;
}

describe('POST /hooks/:template with any JSON', () => {
  it('answers every built-in and user template with success or the common 4xx body, fields within caps, work bounded', async () => {
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        for (const template of TEMPLATES) await postHook(template, text);
      }),
      { numRuns: 60, endOnFailure: true },
    );
  }, 120_000);

  it('renders the 96 KB array bomb once per item of a bounded view: Alertmanager titles it in a few hundred lookups', async () => {
    const instance = Array.from({ length: 16_000 }, () => 'nas');
    const bomb = json({ alerts: [{ status: 'firing', labels: { alertname: 'DiskFailing', severity: 'warning', instance }, fingerprint: 'f1' }] });
    expect(bomb.length).toBeGreaterThan(95_000);

    const res = await postHook('alertmanager', bomb);

    expect(res.status).toBe(201);
    // The section iterates the view's first 100 items, each printing the array as JSON cut to 1,024 characters.
    expect(lookups).toBeLessThan(4 * VIEW_ITEMS_MAX);
    const record = (await t.repository.get(res.body.created[0]))!;
    expect(record.title).toMatch(/^DiskFailing on \["nas","nas",.*…$/);
    expect(record.title).toHaveLength(250);
  });

  it('prints an object, an array or a prototype name as short JSON or nothing, never a 500', async () => {
    const res = await postHook(
      'generic',
      json({ title: { toString: 1 }, message: ['disk', { valueOf: {} }], id: { constructor: 1 }, priority: { valueOf: 2 } }),
    );
    const { title, message, priority } = (await t.repository.get(res.body.created[0]))!;
    expect({ status: res.status, title, message, priority }).toEqual({ status: 201, title: '{"toString":1}', message: '["disk",{"valueOf":{}}]', priority: 0 });

    const kuma = await postHook('uptime-kuma', json({ msg: 'down', monitor: { name: { toString: 'x' }, id: ['__proto__'] } }));
    expect(kuma.status).toBe(201);
    expect((await t.repository.get(kuma.body.created[0]))!.title).toBe('{"toString":"x"}');
  });

  it('renders a section over an array holding null as an empty item, never a 500', async () => {
    const res = await postHook('sections', json({ title: [null, 'a'], items: [null], message: 'm' }));
    const grafana = await postHook('grafana', json({ alerts: [{ labels: { alertname: 'Cold', grafana_folder: [null] } }] }));

    expect([res.status, grafana.status]).toEqual([201, 201]);
    expect((await t.repository.get(grafana.body.created[0]))!.title).toBe('Cold ([null])');
  });

  it('refuses a call whose template nests sections past the step budget, with the common 400 body', async () => {
    const items = Array.from({ length: VIEW_ITEMS_MAX }, (_, i) => i);
    const res = await postHook('sections', json({ items, message: 'm' }));

    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ path: 'body', message: expect.stringContaining(`more than ${RENDER_STEPS_MAX} template steps`) }]);
    expect(t.provider.sent).toHaveLength(0);
  });
});
