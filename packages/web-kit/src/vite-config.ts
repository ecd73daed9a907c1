import { defineConfig, type UserConfig } from 'vite';

/**
 * The build both dashboards share: hashed files under /assets (served with a year of cache), no inline script
 * (the services' CSP allows scripts from 'self' only), nothing fetched from elsewhere, Preact's JSX.
 */
export function dashboardConfig(root: string): UserConfig {
  return defineConfig({
    root,
    base: '/',
    logLevel: 'warn',
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    build: {
      outDir: 'dist',
      emptyOutDir: true,
      assetsDir: 'assets',
      target: 'es2022',
      modulePreload: { polyfill: false },
      // Fonts or images inlined as data: URIs are allowed by the CSP; scripts never are.
      assetsInlineLimit: 4096,
      reportCompressedSize: false,
    },
  });
}
