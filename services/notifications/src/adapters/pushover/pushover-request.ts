import { randomBytes } from 'node:crypto';
import { Agent as HttpAgent, type ClientRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Socket } from 'node:net';
import Pushover from 'pushover-notifications';

/** Where the messages endpoint lives, in the shape the library's `httpOptions` understands. */
export interface PushoverEndpoint {
  protocol: 'http:' | 'https:';
  hostname: string;
  port: number;
  /** host:port, as the Host header must read. */
  host: string;
  path: string;
  href: string;
  /** The API root before `/1/...` (a proxy's path prefix, or empty). */
  prefix: string;
}

/** What Pushover (or whatever answered at the endpoint) sent back, unjudged. */
export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An attachment as the library takes it (`file`); sent as the multipart part `attachment`. */
export interface PushoverFile {
  name: string;
  data: Buffer;
  type?: string;
}

/** The form fields of one message, named as Pushover's API names them. */
export type PushoverFields = Record<string, string | number | PushoverFile>;

/** Throws when `apiUrl` is not an absolute http(s) URL; a path prefix (for a proxy) is kept. */
export function resolveEndpoint(apiUrl: string): PushoverEndpoint {
  const url = new URL(apiUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`Pushover API URL must be http(s)://host[:port], got protocol ${url.protocol}`);
  }
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  const prefix = url.pathname.replace(/\/+$/, '');
  const path = `${prefix}/1/messages.json`;
  return {
    protocol: url.protocol,
    // URL keeps IPv6 literals bracketed ("[::1]"); http.request wants them bare.
    hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port,
    host: url.host,
    path,
    href: `${url.protocol}//${url.host}${path}`,
    prefix,
  };
}

/**
 * How far a request's connection got, as far as it was seen: `unseen` when no socket of ours was used (an
 * interceptor such as nock answered), `connecting` until TCP (and TLS) are up, `open` once a byte may be written.
 */
export type Connection = { state: 'unseen' | 'connecting' | 'open' };

/** The request option that carries a request's `Connection` to the agent (the library copies every option). */
const CONNECTION_OPTION = 'homeopsConnection';

/**
 * Agents that follow each request's socket into its `Connection`: nothing of a message is written before the socket
 * connected (and, over TLS, finished its handshake), so a failure before that certainly sent nothing. A reused
 * keep-alive socket is open from the start. Keep-alive as Node's global agents.
 */
function observing<T extends typeof HttpAgent>(Base: T, secure: boolean): InstanceType<T> {
  const agent = new Base({ keepAlive: true }) as InstanceType<T> & { addRequest(req: ClientRequest, options: Record<string, unknown>): void };
  const addRequest = agent.addRequest.bind(agent);
  agent.addRequest = (req, options) => {
    const connection = options[CONNECTION_OPTION] as Connection | undefined;
    if (connection) {
      connection.state = 'connecting';
      req.once('socket', (socket: Socket) => {
        const opened = () => (connection.state = 'open');
        if (req.reusedSocket || !socket.connecting) opened();
        else socket.once(secure ? 'secureConnect' : 'connect', opened);
      });
    }
    addRequest(req, options);
  };
  return agent;
}

const agents = { 'http:': observing(HttpAgent, false), 'https:': observing(HttpsAgent as unknown as typeof HttpAgent, true) };

/**
 * The library hard-codes https://api.pushover.net and picks http.request only when `httpOptions.proxy`
 * is set, so plain-http endpoints go through that branch; `href` is overwritten because interceptors
 * (nock) read it.
 */
function toHttpOptions(endpoint: PushoverEndpoint, signal: AbortSignal, connection: Connection): Record<string, unknown> {
  const options: Record<string, unknown> = {
    protocol: endpoint.protocol,
    hostname: endpoint.hostname,
    host: endpoint.host,
    port: endpoint.port,
    path: endpoint.path,
    href: endpoint.href,
    signal,
    agent: agents[endpoint.protocol],
    [CONNECTION_OPTION]: connection,
  };
  if (endpoint.protocol === 'http:') options.proxy = `http://${endpoint.host}`;
  return options;
}

/**
 * Without a file, the library glues the closing boundary straight onto the last value ("...value--b--"),
 * which strict parsers (busboy, RFC 2046) reject or read without that field. Ending the last value with
 * CRLF produces exactly the body a correct encoder writes; the CRLF belongs to the delimiter, not the value.
 */
function terminateLastPart(fields: PushoverFields): PushoverFields {
  if (fields.file !== undefined) return fields;
  const keys = Object.keys(fields);
  const last = keys[keys.length - 1];
  return last === undefined ? fields : { ...fields, [last]: `${String(fields[last])}\r\n` };
}

const drawBoundary = () => `homeops-${randomBytes(24).toString('hex')}`;

const holds = (value: PushoverFields[string], text: string): boolean =>
  typeof value === 'object' ? value.data.includes(text) || value.name.includes(text) || (value.type ?? '').includes(text) : String(value).includes(text);

/**
 * The multipart boundary: 192 bits from the CSPRNG (the library draws Math.random), drawn again in the unlikely case
 * that a value holds it. Values go as they are (a message keeps its line breaks): with a boundary that occurs in no
 * value, no CR/LF or "--" in a value can end its part or start another (RFC 2046 5.1.1).
 */
export function chooseBoundary(fields: PushoverFields, draw: () => string = drawBoundary): string {
  for (;;) {
    const boundary = draw();
    if (!Object.values(fields).some((value) => holds(value, boundary))) return boundary;
  }
}

/** The file name and type go into a part's headers, where a line break or quote would forge headers: refused. */
function assertHeaderSafe(file: PushoverFields[string] | undefined): void {
  if (typeof file !== 'object') return;
  if (/[\r\n"]/.test(file.name) || /[\r\n]/.test(file.type ?? '')) {
    throw new Error('The attachment name or type holds a line break or quote, which would break the multipart headers');
  }
}

/**
 * Posts one message through pushover-notifications and resolves with whatever came back, whatever the
 * status; rejects only when no response arrived (network error, abort). Never throws asynchronously.
 * `connection` follows how far the request got (see `Connection`).
 */
export function postMessage(
  credentials: { userKey: string; apiToken: string },
  endpoint: PushoverEndpoint,
  fields: PushoverFields,
  signal: AbortSignal,
  connection: Connection = { state: 'unseen' },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (action: () => void): void => {
      if (settled) return;
      settled = true;
      action();
    };
    const client = new Pushover({
      user: credentials.userKey,
      token: credentials.apiToken,
      httpOptions: toHttpOptions(endpoint, signal, connection),
      // Without onerror the library throws from its response handler, which would kill the process.
      onerror: () => undefined,
    });
    // The library's own body check JSON-parses inside the response handler and throws on some bodies
    // (`null`); the body is judged by classify-response.ts instead.
    client.errors = () => undefined;
    try {
      assertHeaderSafe(fields.file);
      const body = terminateLastPart(fields);
      // The library writes `boundary` as the delimiter line ("--" and the boundary) and strips the dashes for the header.
      client.boundary = `--${chooseBoundary(body)}`;
      client.send(body, (error, data, res) => {
        const status = res?.statusCode;
        if (error) settle(() => reject(error));
        else if (!res || status === undefined) settle(() => reject(new Error('Pushover request ended without a response')));
        else settle(() => resolve({ status, headers: res.headers, body: data ?? '' }));
      });
    } catch (error) {
      settle(() => reject(error));
    }
  });
}
