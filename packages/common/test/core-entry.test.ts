import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

// Runs in a fresh Node process: a resolve hook reports every module the import loads, through a message port. After
// the import, the hooks thread answers a "flush" on the same port: its answer comes after every report it sent before.
const PROBE = `
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const loaded = [];
let flushed;
port1.on('message', (message) => (message === 'flushed' ? flushed() : loaded.push(message)));
const hooks = 'export let port; export function initialize(data) { port = data.port; port.on("message", () => port.postMessage("flushed")); }' +
  ' export async function resolve(specifier, context, next) { const r = await next(specifier, context); port.postMessage(r.url); return r; }';
register('data:text/javascript,' + encodeURIComponent(hooks), { data: { port: port2 }, transferList: [port2] });
await import(process.argv[1]);
await new Promise((done) => {
  flushed = done;
  port1.postMessage('flush');
});
port1.close();
process.stdout.write(JSON.stringify(loaded));
`;

/** The packages (by name) an import of `specifier` loads, in a fresh process with the `source` condition. */
function packagesLoadedBy(specifier: string): string[] {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--conditions=source', '--input-type=module', '-e', PROBE, specifier], {
    cwd: packageDir,
    encoding: 'utf8',
    timeout: 30_000,
  });
  const names = (JSON.parse(out) as string[]).flatMap((url) => {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(url);
    return match ? [match[1]!] : [];
  });
  return [...new Set(names)].sort();
}

describe('@homeops/common/core', () => {
  it('loads zod and nothing of the HTTP, config or logging side', () => {
    const loaded = packagesLoadedBy('@homeops/common/core').filter((name) => name !== 'tsx');

    expect(loaded).toEqual(['@asteasolutions/zod-to-openapi', 'zod']);
  });

  it('is a probe that sees Express when the main entry is imported', () => {
    const loaded = packagesLoadedBy('@homeops/common');

    expect(loaded).toEqual(expect.arrayContaining(['express', 'helmet', 'pino', 'swagger-ui-express']));
  });
});
