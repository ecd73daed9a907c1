import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { EmulatedDevice } from './emulated-device.js';
import { SUBDEVICE_TYPES } from './hub-sensors.js';

/** The request-signing constant of the Meross app, as the real cloud checks it. */
export const SIGNING_SECRET = '23x17ahWarFH6w29';

/** The account the emulated cloud knows. */
export interface EmulatedAccount {
  email: string;
  password: string;
  userId: string;
  key: string;
  mfaCode?: string;
}

/** up; unavailable: every call gets HTTP 503; hang: calls are never answered. */
export type ApiMode = 'up' | 'unavailable' | 'hang';
/** An apiStatus a path answers instead of its normal answer, `times` times (default: until cleared). */
export interface ForcedAnswer {
  apiStatus: number;
  data?: unknown;
  times?: number;
}

/** What signIn answers instead of logging in: a 1030 redirect, with or without its data. */
export type SignInRedirect = { domain: string; mqttDomain: string } | 'without-data' | null;

const CALL_OF_PATH: Record<string, 'signIn' | 'devList' | 'getSubDevices' | 'logout' | undefined> = {
  '/v1/Auth/signIn': 'signIn',
  '/v1/Device/devList': 'devList',
  '/v1/Hub/getSubDevices': 'getSubDevices',
  '/v1/Profile/logout': 'logout',
};

export const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/** The HTTPS side of the emulated cloud: signIn, devList, getSubDevices, logout, with the real signature check. */
export class EmulatorApi {
  mode: ApiMode = 'up';
  /** Every answer waits this long (a slow cloud). */
  delayMs = 0;
  redirect: SignInRedirect = null;
  tooManyTokens = false;
  /** Tokens are rejected as soon as they are issued (a cloud that keeps refusing its own tokens). */
  rejectNewTokens = false;
  /** While set, every call (sign-in, device list, hub devices, logout) is counted and answered with this code: a lock-out (1035, 1301…). */
  lockedOut: number | null = null;
  /** When set, devList answers apiStatus 0 with this as data instead of the devices. */
  devListData: unknown = undefined;
  /** Any apiStatus on demand, per path: the call is counted and answered with it instead. */
  readonly answerWith: Partial<Record<'signIn' | 'devList', ForcedAnswer>> = {};
  readonly calls = { total: 0, signIn: 0, devList: 0, getSubDevices: 0, logout: 0, rejectedToken: 0, badSignature: 0 };
  readonly issuedTokens: string[] = [];
  private readonly tokens = new Set<string>();
  private server: Server | undefined;
  private port = 0;

  constructor(
    private readonly account: EmulatedAccount,
    private readonly devices: () => EmulatedDevice[],
    private readonly host: string,
    /** The host of each broker, by index: a device's devList domain is the host of its broker. */
    private readonly brokerHosts: string[] = [host],
  ) {}

  get url(): string {
    return `https://${this.host}:${this.port}`;
  }

  get listening(): boolean {
    return this.server !== undefined;
  }

  async listen(tls: { cert: string; key: string }): Promise<void> {
    const server = createServer(tls, (req, res) => this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // Listening again after close() takes the same port, so the URL the integration holds stays right.
      server.listen(this.port, this.host, () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  /** Every token issued so far is answered with 1022 from now on (as after a password change). */
  revokeTokens(): void {
    this.tokens.clear();
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    this.calls.total += 1;
    if (this.delayMs > 0) {
      const timer = setTimeout(() => this.answerRequest(req, res), this.delayMs);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    this.answerRequest(req, res);
  }

  private answerRequest(req: IncomingMessage, res: ServerResponse): void {
    if (this.mode === 'hang') return;
    if (this.mode === 'unavailable') {
      res.writeHead(503, { 'content-type': 'text/html' }).end('<html>503 Service Temporarily Unavailable</html>');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const [params, sign, timestamp, nonce] = ['params', 'sign', 'timestamp', 'nonce'].map((k) => form.get(k) ?? '');
      if (req.method !== 'POST' || !params || md5(`${SIGNING_SECRET}${timestamp}${nonce}${params}`) !== sign) {
        this.calls.badSignature += 1;
        this.answer(res, 5000, null, 'sign error');
        return;
      }
      let data: Record<string, unknown>;
      try {
        data = JSON.parse(Buffer.from(params, 'base64').toString('utf8')) as Record<string, unknown>;
      } catch {
        this.answer(res, 5000, null, 'params error');
        return;
      }
      const token = /^Basic (.*)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      this.route(req.url ?? '', data, token, res);
    });
  }

  /** The forced answer for this path, if one is set and not used up. */
  private forced(path: 'signIn' | 'devList'): ForcedAnswer | undefined {
    const forced = this.answerWith[path];
    if (!forced) return undefined;
    if (forced.times !== undefined) {
      forced.times -= 1;
      if (forced.times <= 0) delete this.answerWith[path];
    }
    return forced;
  }

  private route(path: string, params: Record<string, unknown>, token: string, res: ServerResponse): void {
    if (this.lockedOut !== null) {
      const counter = CALL_OF_PATH[path];
      if (counter) this.calls[counter] += 1;
      this.answer(res, this.lockedOut, null, 'locked');
      return;
    }
    const forced = path === '/v1/Auth/signIn' ? this.forced('signIn') : path === '/v1/Device/devList' ? this.forced('devList') : undefined;
    if (forced) {
      if (path === '/v1/Auth/signIn') this.calls.signIn += 1;
      else this.calls.devList += 1;
      this.answer(res, forced.apiStatus, forced.data ?? null, 'forced');
      return;
    }
    if (path === '/v1/Auth/signIn') {
      this.signIn(params, res);
      return;
    }
    if (!['/v1/Device/devList', '/v1/Hub/getSubDevices', '/v1/Profile/logout'].includes(path)) {
      res.writeHead(404).end();
      return;
    }
    if (!this.tokens.has(token)) {
      this.calls.rejectedToken += 1;
      this.answer(res, 1022, null, 'Token error');
      return;
    }
    if (path === '/v1/Device/devList') {
      this.calls.devList += 1;
      this.answer(res, 0, this.devListData !== undefined ? this.devListData : this.devices().map((d) => d.listEntry(this.brokerHosts[d.broker] ?? this.host)));
    } else if (path === '/v1/Hub/getSubDevices') {
      this.calls.getSubDevices += 1;
      const hub = this.devices().find((d) => d.uuid === params.uuid);
      this.answer(
        res,
        0,
        (hub?.hubDevices ?? []).map((d) => ({ subDeviceId: d.id, subDeviceType: SUBDEVICE_TYPES[d.kind], subDeviceName: d.name })),
      );
    } else {
      this.calls.logout += 1;
      this.tokens.delete(token);
      this.answer(res, 0, {});
    }
  }

  private signIn(params: Record<string, unknown>, res: ServerResponse): void {
    this.calls.signIn += 1;
    if (this.tooManyTokens) return this.answer(res, 1301, null, 'too many tokens');
    if (this.redirect === 'without-data') return this.answer(res, 1030, null, 'redirect');
    if (this.redirect) return this.answer(res, 1030, this.redirect, 'redirect');
    if (params.email !== this.account.email || params.password !== md5(this.account.password)) {
      return this.answer(res, 1004, null, 'Wrong email or password');
    }
    if (this.account.mfaCode && params.mfaCode !== this.account.mfaCode) {
      return this.answer(res, params.mfaCode ? 1032 : 1033, null, 'MFA');
    }
    const token = randomBytes(16).toString('hex');
    if (!this.rejectNewTokens) this.tokens.add(token);
    this.issuedTokens.push(token);
    this.answer(res, 0, {
      userid: this.account.userId,
      email: this.account.email,
      token,
      key: this.account.key,
      domain: this.url,
      mqttDomain: this.host,
    });
  }

  private answer(res: ServerResponse, apiStatus: number, data: unknown, info = ''): void {
    const body = JSON.stringify({ apiStatus, sysStatus: 0, data, info, timeStamp: Math.floor(Date.now() / 1000) });
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  }
}
