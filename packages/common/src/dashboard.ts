import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import { AppError } from './errors.js';

/** Paths of the dashboard, reachable without the API key: the page asks for the key itself. */
export const DASHBOARD_PATHS = ['/', '/assets'] as const;

/**
 * Serves a dashboard built by Vite: `/` (the page, revalidated on every load) and `/assets/*` (content-hashed
 * file names, so a year of cache and `immutable`). An unbuilt dashboard answers the common error body.
 */
export function mountDashboard(app: Express, folder: string | URL): void {
  const dir = typeof folder === 'string' ? folder : fileURLToPath(folder);
  const index = join(dir, 'index.html');
  app.use('/assets', express.static(join(dir, 'assets'), { immutable: true, maxAge: '365d', index: false, redirect: false }));
  app.get('/', (_req, res, next) => {
    if (!existsSync(index)) {
      next(new AppError('ROUTE_NOT_FOUND', 'The dashboard is not built', { solution: 'Run "pnpm build" (or "pnpm -r run build:web"), then reload' }));
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index, (err) => err && next(err));
  });
}
