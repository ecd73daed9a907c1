import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '@homeops/common';
import { request } from 'node:https';
import { CloudCallError, describeApiStatus } from './meross-codes.js';

/** The request-signing constant of the Meross app (public: it ships in the app and in meross-cloud). */
const SIGNING_SECRET = '23x17ahWarFH6w29';
const MAX_REDIRECTS = 2;
const MAX_BODY_BYTES = 5 * 1024 * 1024;

/** What one API call reports to the adapter's log: no parameters, no headers, no body. */
export interface ApiCallRecord {
  path: string;
  outcome: string;
  ms: number;
}

/** Where the API lives after a call (a region redirect moves it). */
export interface ApiLocation {
  /** `host[:port]`, the way meross-cloud keeps its domain. */
  host: string;
  mqttDomain: string | null;
}

/** The data of a successful call. */
export interface ApiResult {
  data: unknown;
  /** Set when the cloud redirected the account to another region during the call. */
  movedTo: ApiLocation | null;
}

function md5(text: string): string {
  return createHash('md5').update(text).digest('hex');
}

/** The form fields the Meross API expects: base64 JSON params, signed with the app secret. */
export function signedForm(params: unknown, now: number): string {
  const encoded = Buffer.from(JSON.stringify(params)).toString('base64');
  const nonce = randomBytes(8).toString('hex');
  const sign = md5(`${SIGNING_SECRET}${now}${nonce}${encoded}`);
  return new URLSearchParams({ params: encoded, sign, timestamp: String(now), nonce }).toString();
}

/** Parses a redirect target ("https://iotx-eu.meross.com", "iotx-eu.meross.com:443") into host[:port]. */
export function redirectHost(domain: unknown): string | null {
  if (typeof domain !== 'string' || domain.length === 0) return null;
  try {
    const url = new URL(domain.includes('://') ? domain : `https://${domain}`);
    return url.protocol === 'https:' ? url.host : null;
  } catch {
    return null;
  }
}

/** The Meross HTTP API over node:https, in place of meross-cloud's own transport (see the adapter's comment). */
export class MerossHttp {
  constructor(
    private readonly timeoutMs: number,
    private readonly record: (call: ApiCallRecord) => void,
    private readonly clock: Clock,
  ) {}

  async post(host: string, path: string, token: string | null, params: unknown): Promise<ApiResult> {
    let target = host;
    let movedTo: ApiLocation | null = null;
    for (let redirects = 0; ; redirects += 1) {
      const started = this.clock.now();
      let body: { apiStatus?: unknown; data?: unknown };
      try {
        body = await this.send(target, path, token, params);
      } catch (err) {
        const failure = err as CloudCallError;
        this.record({ path, outcome: failure.kind, ms: this.clock.now() - started });
        throw failure;
      }
      this.record({ path, outcome: `apiStatus ${String(body.apiStatus)}`, ms: this.clock.now() - started });
      if (body.apiStatus === 0) return { data: body.data, movedTo };
      if (body.apiStatus === 1030) {
        const data = (body.data ?? {}) as { domain?: unknown; mqttDomain?: unknown };
        const next = redirectHost(data.domain);
        if (!next) throw new CloudCallError('api', 1030, `${path}: region redirect without a usable domain`);
        if (redirects >= MAX_REDIRECTS) throw new CloudCallError('api', 1030, `${path}: too many region redirects`);
        target = next;
        movedTo = { host: next, mqttDomain: typeof data.mqttDomain === 'string' ? data.mqttDomain : null };
        continue;
      }
      const code = typeof body.apiStatus === 'number' ? body.apiStatus : null;
      if (code === null) throw new CloudCallError('malformed', null, `${path}: answer without apiStatus`);
      throw new CloudCallError('api', code, `${path}: cloud error ${code} (${describeApiStatus(code)})`);
    }
  }

  private send(host: string, path: string, token: string | null, params: unknown): Promise<{ apiStatus?: unknown; data?: unknown }> {
    const form = signedForm(params, this.clock.now());
    return new Promise((resolve, reject) => {
      const req = request(
        `https://${host}${path}`,
        {
          method: 'POST',
          timeout: this.timeoutMs,
          headers: {
            Authorization: `Basic ${token ?? ''}`,
            Vendor: 'meross',
            AppVersion: '3.22.4',
            AppType: 'iOS',
            AppLanguage: 'en',
            'Content-Type': 'application/x-www-form-urlencoded',
            'Content-Length': Buffer.byteLength(form),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_BODY_BYTES) req.destroy(new CloudCallError('malformed', null, `${path}: answer too large`));
            else chunks.push(chunk);
          });
          res.on('error', (err) => reject(toCallError(err, path)));
          res.on('end', () => {
            if (res.statusCode !== 200) {
              reject(new CloudCallError('http', null, `${path}: HTTP ${res.statusCode ?? 'without status'}`));
              return;
            }
            try {
              const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
              if (typeof parsed !== 'object' || parsed === null) throw new Error('not an object');
              resolve(parsed as { apiStatus?: unknown; data?: unknown });
            } catch {
              reject(new CloudCallError('malformed', null, `${path}: answer is not a JSON object`));
            }
          });
        },
      );
      req.on('timeout', () => req.destroy(new CloudCallError('timeout', null, `${path}: no answer within ${this.timeoutMs} ms`)));
      req.on('error', (err) => reject(toCallError(err, path)));
      req.end(form);
    });
  }
}

function toCallError(err: unknown, path: string): CloudCallError {
  if (err instanceof CloudCallError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  return new CloudCallError('network', null, `${path}: ${code ?? 'connection failed'}`);
}
