import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { ATTACKER_HOST } from './lan-browser.js';

/** A hostile web site on loopback, under ATTACKER_HOST: serves the pages it is given, nothing else. */
export interface AttackerSite {
  /** The address of the page served at `path`, as a browser opens it. */
  urlOf(path: string): string;
  close(): Promise<void>;
}

/** A page of the site: its HTML, and headers to send with it. */
export interface AttackerPage {
  html: string;
  headers?: Record<string, string>;
}

/** Starts the site on 127.0.0.1 with `pages` (path → page); any other path is a 404. */
export async function startAttackerSite(pages: Record<string, AttackerPage>): Promise<AttackerSite> {
  const server = createServer((req, res) => {
    const page = pages[req.url ?? ''];
    res.writeHead(page === undefined ? 404 : 200, { 'Content-Type': 'text/html; charset=utf-8', ...page?.headers });
    res.end(page?.html ?? 'not found');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    urlOf: (path) => `http://${ATTACKER_HOST}:${port}${path}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/** A page that submits a form to `action` as soon as it loads, the way a hostile page does unseen. */
export function autoSubmittedForm(action: string, enctype: string, fields: Record<string, string> = {}): AttackerPage {
  const inputs = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${value}">`)
    .join('');
  return { html: `<!doctype html><form method="post" action="${action}" enctype="${enctype}">${inputs}</form><script>document.forms[0].submit()</script>` };
}

/** `page` in a sandbox (the CSP directive): its origin is opaque, so what it sends carries `Origin: null`. */
export function sandboxed(page: AttackerPage): AttackerPage {
  return { ...page, headers: { ...page.headers, 'Content-Security-Policy': 'sandbox allow-forms allow-scripts' } };
}

/** A page that runs `script` as soon as it loads. */
export function scriptPage(script: string): AttackerPage {
  return { html: `<!doctype html><script>${script}</script>` };
}

/** A request as it went over the wire: the headers the browser added and the status the service answered. */
export interface RequestOnTheWire {
  status: number;
  secFetchSite: string | undefined;
  origin: string | undefined;
}

/** A page that shows `src` as an image, the way any page embeds a picture (a GET the browser sends unasked). */
export function imagePage(src: string): AttackerPage {
  return { html: `<!doctype html><p>Cute cats</p><img src="${src}" alt="">` };
}

interface WireRecord {
  url?: string;
  method?: string;
  headers?: Record<string, string>;
  status?: number;
}

/**
 * Watches `page` through the DevTools protocol, which sees every answer, also those the browser then hides from the
 * page (an opaque no-cors answer, one refused by CORS or Cross-Origin-Resource-Policy). `answerTo(url)` resolves with
 * the first request to `url` by `method` (default POST) sent after the call, once answered.
 */
export async function watchRequests(page: Page): Promise<{ answerTo(url: string, method?: string, timeoutMs?: number): Promise<RequestOnTheWire> }> {
  const cdp = await page.context().newCDPSession(page);
  const records = new Map<string, WireRecord>();
  const waiters = new Set<(id: string, record: WireRecord) => void>();
  const update = (requestId: string, change: WireRecord) => {
    const record = { ...records.get(requestId), ...change };
    records.set(requestId, record);
    for (const waiter of waiters) waiter(requestId, record);
  };
  cdp.on('Network.requestWillBeSent', (e) => update(e.requestId, { url: e.request.url, method: e.request.method }));
  cdp.on('Network.requestWillBeSentExtraInfo', (e) => update(e.requestId, { headers: lowerCased(e.headers) }));
  cdp.on('Network.responseReceivedExtraInfo', (e) => update(e.requestId, { status: e.statusCode }));
  await cdp.send('Network.enable');
  return {
    answerTo: (url, method = 'POST', timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const seen = new Set(records.keys());
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no answered ${method} to ${url} within ${timeoutMs} ms`));
        }, timeoutMs);
        function check(id: string, r: WireRecord) {
          if (seen.has(id) || r.url !== url || r.method !== method || r.status === undefined || r.headers === undefined) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve({ status: r.status, secFetchSite: r.headers['sec-fetch-site'], origin: r.headers.origin });
        }
        waiters.add(check);
      }),
  };
}

function lowerCased(headers: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), String(value)]));
}
