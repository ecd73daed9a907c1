import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadHookTemplates } from '../../src/adapters/hooks/hook-template.js';
import { renderHook, valueAt } from '../../src/adapters/hooks/render-hook.js';

// Templates of one's own: checked at start (a bad one names itself and its field), rendered without running anything.
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function fileWith(content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'hooks-'));
  dirs.push(dir);
  const file = join(dir, 'hooks.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

const washer = {
  recipient: 'family',
  title: '{{device.name}}',
  message: '{{event.text}}',
  priority: { from: 'event.level', map: { alarm: 2, info: -1 }, default: 0 },
  identity: '{{device.id}}',
  resolved: { from: 'event.kind', values: ['cleared'] },
};

describe('HOOK_TEMPLATES_FILE', () => {
  it('reads YAML as well as JSON', () => {
    const yaml = ['templates:', '  door:', '    recipient: family', "    title: '{{name}}'", "    message: '{{name}} is open'"].join('\n');
    const [alert] = renderHook('door', loadHookTemplates(fileWith(yaml)).get('door')!, { name: 'Garage' }, {});
    expect(alert!.body).toEqual({ recipient: 'family', title: 'Garage', message: 'Garage is open', priority: 0 });
  });

  it('adds its templates to the built-in ones, or replaces one by name', () => {
    const templates = loadHookTemplates(fileWith({ templates: { washer, generic: { title: 'Mine', message: '{{text}}' } } }));
    expect([...templates.keys()]).toEqual(['alertmanager', 'grafana', 'uptime-kuma', 'generic', 'washer']);
    const [alert] = renderHook(
      'washer',
      templates.get('washer')!,
      { device: { id: 'w1', name: 'Washer' }, event: { text: 'Done', level: 'alarm', kind: 'fired' } },
      {},
    );
    expect(alert).toEqual({ state: 'firing', identity: 'w1', body: { recipient: 'family', title: 'Washer', message: 'Done', priority: 2 } });
    expect(renderHook('generic', templates.get('generic')!, { text: 'hi' }, { recipient: 'a' })[0]!.body).toMatchObject({ title: 'Mine', message: 'hi' });
  });

  it('stops the start on a template that does not parse or a field it does not know, naming both', () => {
    expect(() => loadHookTemplates(fileWith({ templates: { washer: { ...washer, title: '{{#device}}{{name}}' } } }))).toThrow(
      /hook template "washer": title is not a valid template/,
    );
    expect(() => loadHookTemplates(fileWith({ templates: { washer: { ...washer, script: 'rm -rf /' } } }))).toThrow(/templates\.washer/);
    expect(() => loadHookTemplates(fileWith({ templates: { 'Bad Name': washer } }))).toThrow(/HOOK_TEMPLATES_FILE/);
    expect(() => loadHookTemplates(fileWith('templates: [unclosed'))).toThrow(/cannot be read as YAML or JSON/);
  });

  it('stops the start on a template naming __proto__ (Mustache keeps its lookups in a plain object)', () => {
    expect(() => loadHookTemplates(fileWith({ templates: { washer: { ...washer, message: '{{#a}}{{b.__proto__.c}}{{/a}}' } } }))).toThrow(
      /hook template "washer": message names __proto__/,
    );
  });

  it('maps a priority by the own keys of its map only: a body saying "constructor" or "toString" gets the default', () => {
    const template = loadHookTemplates(fileWith({ templates: { washer } })).get('washer')!;
    const levels = ['constructor', 'toString', '__proto__', 'alarm'].map(
      (level) => renderHook('washer', template, { device: { id: 'w1' }, event: { text: 'Done', level } }, {})[0]!.body.priority,
    );
    expect(levels).toEqual([0, 0, 0, 2]);
  });

  it('renders text only: HTML is not escaped, nothing in a body runs, and prototype names read nothing', () => {
    const templates = loadHookTemplates(undefined);
    const body = { title: '<b>A & B</b>', message: '{{constructor}} {{__proto__}}', id: 'x', __proto__: { polluted: true } };
    const [alert] = renderHook('generic', templates.get('generic')!, body, { recipient: 'a' });
    expect(alert!.body).toMatchObject({ title: '<b>A & B</b>', message: '{{constructor}} {{__proto__}}' });
    expect(valueAt({ a: {} }, 'a.constructor')).toBeUndefined();
    expect(valueAt({ a: [{ b: 1 }] }, 'a.0.b')).toBe(1);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('shortens a long alert to what Pushover takes instead of refusing it', () => {
    const [alert] = renderHook(
      'generic',
      loadHookTemplates(undefined).get('generic')!,
      { title: 't'.repeat(400), message: 'm'.repeat(5000) },
      { recipient: 'a' },
    );
    expect((alert!.body.title as string).length).toBe(250);
    expect((alert!.body.message as string).length).toBe(1024);
  });
});
