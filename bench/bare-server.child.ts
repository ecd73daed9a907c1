// The ceiling: an Express 5 app with one route that answers a fixed JSON body, nothing else (no middleware).
// Express is taken from device-control's dependencies so the ceiling runs the services' own Express version.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

interface BareResponse {
  status(code: number): BareResponse;
  json(body: unknown): void;
}
interface BareApp {
  get(path: string, handler: (req: unknown, res: BareResponse) => void): void;
  post(path: string, handler: (req: unknown, res: BareResponse) => void): void;
  listen(port: number, host: string, callback: () => void): { on(event: 'error', listener: (error: Error) => void): void };
}

const { PORT, BARE_METHOD, BARE_PATH, BARE_STATUS, BARE_BODY_FILE } = process.env;
if (!PORT || !BARE_PATH || !BARE_BODY_FILE || (BARE_METHOD !== 'get' && BARE_METHOD !== 'post')) {
  throw new Error('bare-server: PORT, BARE_METHOD (get|post), BARE_PATH and BARE_BODY_FILE are required');
}
const serviceRequire = createRequire(fileURLToPath(new URL('../services/device-control/package.json', import.meta.url)));
const { default: express } = (await import(serviceRequire.resolve('express'))) as { default: () => BareApp };

const body: unknown = JSON.parse(readFileSync(BARE_BODY_FILE, 'utf8'));
const status = Number(BARE_STATUS ?? 200);
const app = express();
app[BARE_METHOD](BARE_PATH, (_req, res) => {
  res.status(status).json(body);
});
app.get('/health', (_req, res) => {
  res.json({ status: 'ok' });
});
const server = app.listen(Number(PORT), '127.0.0.1', () => console.log(`bare ${BARE_METHOD} ${BARE_PATH} on ${PORT}`));
server.on('error', (error) => {
  console.error(error);
  process.exit(1);
});
