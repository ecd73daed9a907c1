import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const REPO_ROOT = resolve(import.meta.dirname, '../../..');

/**
 * The repository's own modules, read from source as `--conditions=source` reads them, each keeping its own
 * `import.meta` (the dashboard's folder, prom-client's require), so the bundle behaves as the files would.
 */
const ownSources: Plugin = {
  name: 'own-sources',
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const text = readFileSync(args.path, 'utf8')
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)));
      return { contents: text, loader: 'ts' };
    });
    // Packages stay outside the bundle, imported from where Node would find them for the file that imports them.
    builder.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith('@homeops/') || args.path.startsWith('node:') || args.pluginData === 'own-sources') return undefined;
      const found = await builder.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'own-sources' });
      return found.errors.length > 0 ? { errors: found.errors } : { path: found.path, external: true };
    });
  },
};

let outDir: string | undefined;
const bundles = new Map<string, Promise<string>>();

/**
 * `services/<service>/src/main.ts` and the workspace code it imports as one JavaScript file, built once per test
 * process (a quarter of a second): starting it costs the child about half the CPU that loading each TypeScript file
 * through tsx does, and the suites start a service about a hundred times.
 */
export function serviceBundle(service: string): Promise<string> {
  let bundle = bundles.get(service);
  if (!bundle) {
    bundle = buildService(service);
    bundles.set(service, bundle);
  }
  return bundle;
}

async function buildService(service: string): Promise<string> {
  if (!outDir) {
    const dir = mkdtempSync(join(tmpdir(), 'homeops-service-build-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    outDir = dir;
  }
  const outfile = join(outDir, `${service}.mjs`);
  await build({
    entryPoints: [join(REPO_ROOT, 'services', service, 'src/main.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['source'],
    plugins: [ownSources],
    outfile,
    logLevel: 'error',
  });
  return outfile;
}
