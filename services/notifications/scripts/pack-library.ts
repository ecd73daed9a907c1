// Packs @homeops/notifications as ONE tarball that installs on its own: the compiled @homeops/common is copied
// into dist/common and imported by relative path, and common's runtime dependencies become the package's own;
// the built dashboard goes in web/dist.
// Usage: tsx scripts/pack-library.ts [destination folder, default: the current folder]
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';

const serviceDir = resolve(import.meta.dirname, '..');
const commonDir = resolve(serviceDir, '../../packages/common');
const destination = resolve(process.argv[2] ?? process.cwd());
const COMMON = '@homeops/common';
// Types the public declarations expose (createApp answers an Express app): a typed consumer needs them installed.
const PUBLIC_TYPES = ['@types/express'];

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
  exports?: Record<string, unknown>;
  [key: string]: unknown;
}

const readManifest = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/** Compiled output only: no build info, and no source maps, which point at sources the package does not ship. */
const shipped = (source: string) => !/\.(tsbuildinfo|map)$/.test(source);

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Each entry of @homeops/common (`@homeops/common`, `@homeops/common/core`) and its compiled file under dist/common. */
function commonEntries(common: Manifest): Array<[specifier: string, file: string]> {
  return Object.entries(common.exports ?? {}).map(([key, conditions]) => {
    const compiled = (conditions as { default: string }).default.replace(/^\.\/dist\//, 'common/');
    return [key === '.' ? COMMON : `${COMMON}${key.slice(1)}`, compiled];
  });
}

/** Points every import of an @homeops/common entry in dist (code and declarations) at its file in dist/common. */
function relinkCommon(dist: string): void {
  for (const file of filesUnder(dist).filter((f) => /\.(js|d\.ts)$/.test(f) && !f.startsWith(join(dist, 'common/')))) {
    let text = readFileSync(file, 'utf8');
    if (!text.includes(COMMON)) continue;
    for (const [specifier, entry] of commonEntries(readManifest(commonDir))) {
      let target = relative(dirname(file), join(dist, entry));
      if (!target.startsWith('.')) target = `./${target}`;
      text = text.replaceAll(`'${specifier}'`, `'${target}'`).replaceAll(`"${specifier}"`, `"${target}"`);
    }
    writeFileSync(file, text);
  }
}

/** The published manifest: no workspace dependency; common's runtime dependencies and the public types added. */
function publishedManifest(service: Manifest, common: Manifest): Manifest {
  const { [COMMON]: _bundled, ...own } = service.dependencies ?? {};
  for (const name of PUBLIC_TYPES) own[name] = service.devDependencies?.[name] ?? '*';
  const { devDependencies: _dev, scripts: _scripts, ...rest } = service;
  const exports = JSON.parse(JSON.stringify(service.exports ?? {}), (key, value: unknown) => (key === 'source' ? undefined : value));
  return { ...rest, exports, dependencies: Object.fromEntries(Object.entries({ ...common.dependencies, ...own }).sort()) };
}

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { cwd: serviceDir, stdio: 'inherit' });
// The dashboard App serves at / (web/dist, found beside dist/ as in the repository).
const vite = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin/vite.js');
execFileSync(process.execPath, [vite, 'build', '--config', 'web/vite.config.ts'], { cwd: serviceDir, stdio: ['ignore', 'ignore', 'inherit'] });

mkdirSync(destination, { recursive: true });
const stage = mkdtempSync(join(tmpdir(), 'notifications-pack-'));
try {
  cpSync(join(serviceDir, 'dist'), join(stage, 'dist'), { recursive: true, filter: shipped });
  cpSync(join(commonDir, 'dist'), join(stage, 'dist/common'), { recursive: true, filter: shipped });
  relinkCommon(join(stage, 'dist'));
  cpSync(join(serviceDir, 'web/dist'), join(stage, 'web/dist'), { recursive: true });
  cpSync(join(serviceDir, 'README.md'), join(stage, 'README.md'));
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(publishedManifest(readManifest(serviceDir), readManifest(commonDir)), null, 2)}\n`);
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', destination], { cwd: stage, encoding: 'utf8' }).trim();
  process.stdout.write(`${join(destination, name.split('\n').at(-1)!)}\n`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
