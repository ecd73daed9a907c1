import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { artifactPath } from './support/artifacts.js';

// The size budget: each page's JavaScript and CSS together at most 60 KB gzipped (as served, built by Vite).
const ROOT = resolve(import.meta.dirname, '..');
const LIMIT_BYTES = 60 * 1024;

function gzippedAssets(service: string): { files: Record<string, number>; total: number } {
  const dir = join(ROOT, 'services', service, 'web/dist/assets');
  const files = Object.fromEntries(
    readdirSync(dir)
      .filter((name) => /\.(js|css)$/.test(name))
      .map((name) => [name.replace(/-[\w-]{8}\./, '.'), gzipSync(readFileSync(join(dir, name)), { level: 9 }).length]),
  );
  return { files, total: Object.values(files).reduce((a, b) => a + b, 0) };
}

describe('the dashboards as built', () => {
  it('keep JavaScript and CSS together at most 60 KB gzipped per page', () => {
    const sizes = { 'device-control': gzippedAssets('device-control'), notifications: gzippedAssets('notifications') };
    writeFileSync(artifactPath('bench/results/dashboard-size.json'), `${JSON.stringify({ limitBytes: LIMIT_BYTES, gzipLevel: 9, ...sizes }, null, 2)}\n`);

    expect(sizes['device-control'].total).toBeGreaterThan(0);
    expect(sizes.notifications.total).toBeGreaterThan(0);
    expect(sizes['device-control'].total).toBeLessThanOrEqual(LIMIT_BYTES);
    expect(sizes.notifications.total).toBeLessThanOrEqual(LIMIT_BYTES);
  });
});
