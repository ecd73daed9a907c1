import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

// Runs in a fresh Node process: a resolve hook reports every module the import loads, through a message port.
const PROBE = `
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const loaded = [];
port1.on('message', (url) => loaded.push(url));
const hooks = 'export let port; export function initialize(data) { port = data.port; }' +
  ' export async function resolve(specifier, context, next) { const r = await next(specifier, context); port.postMessage(r.url); return r; }';
register('data:text/javascript,' + encodeURIComponent(hooks), { data: { port: port2 }, transferList: [port2] });
await import(process.argv[1]);
await new Promise((done) => setTimeout(done, 50));
port1.close();
process.stdout.write(JSON.stringify(loaded));
`;

/** The packages (by name) an import of `specifier` loads, in a fresh process with the `source` condition. */
function packagesLoadedBy(specifier: string): string[] {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--conditions=source', '--input-type=module', '-e', PROBE, specifier], {
    cwd: packageDir,
    encoding: 'utf8',
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
