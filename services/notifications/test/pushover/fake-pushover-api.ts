import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readForm, startLocalServer, type ParsedForm } from './pushover-test-kit.js';

/** One request the fake received: the endpoint it called and its fields (form or query). */
export interface ApiCall {
  endpoint: 'messages' | 'validate' | 'receipt' | 'cancel' | 'cancel_by_tag' | 'sounds' | 'other';
  fields: Record<string, string>;
  receipt?: string;
  at: number;
}

interface Alarm {
  receipt: string;
  user: string;
  tags: string[];
  sentAt: number;
  expiresAt: number;
  acknowledged?: { at: number; by: string; device: string };
  cancelled: boolean;
}

/** An answer forced on the next message requests, in order (else the fake behaves like Pushover). */
export type Forced = { status: number; body: object } | 'hang';

const receiptId = () => randomBytes(15).toString('hex').slice(0, 30);

/**
 * Pushover on 127.0.0.1 with its state: messages (emergencies get receipts), users/validate (known keys and their
 * devices), receipts (acknowledge them from the test), cancels, and the app's sound list. Records every call.
 */
export async function startFakePushoverApi(options: {
  users: Record<string, string[]>;
  sounds?: Record<string, string>;
  token: string;
  /** How long a message takes to be answered (the alert-storm benchmark uses Pushover's 100 ms); default at once. */
  messageDelayMs?: number;
}) {
  const calls: ApiCall[] = [];
  const alarms = new Map<string, Alarm>();
  const forced: Forced[] = [];
  const sounds = options.sounds ?? { pushover: 'Pushover (default)', siren: 'Siren', doorbell: 'Doorbell (custom)' };
  let soundsStatus = 200;

  const answer = (res: ServerResponse, status: number, body: object) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const tokenOk = (fields: Record<string, string>) => fields.token === options.token;

  const handle = (req: IncomingMessage, res: ServerResponse, fields: Record<string, string>) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const byTag = /^\/1\/receipts\/cancel_by_tag\/([^/]+)\.json$/.exec(path);
    const receiptMatch = byTag ? null : /^\/1\/receipts\/([^/]+?)(\/cancel)?\.json$/.exec(path);
    const endpoint: ApiCall['endpoint'] = byTag
      ? 'cancel_by_tag'
      : path === '/1/messages.json'
        ? 'messages'
        : path === '/1/users/validate.json'
          ? 'validate'
          : path === '/1/sounds.json'
            ? 'sounds'
            : receiptMatch
              ? receiptMatch[2]
                ? 'cancel'
                : 'receipt'
              : 'other';
    const call: ApiCall = {
      endpoint,
      fields: byTag ? { ...fields, tag: decodeURIComponent(byTag[1]!) } : fields,
      at: Date.now(),
      ...(receiptMatch ? { receipt: receiptMatch[1]! } : {}),
    };
    calls.push(call);
    if (!tokenOk(fields)) return answer(res, 400, { status: 0, token: 'invalid', errors: ['application token is invalid'], request: randomUUID() });
    if (endpoint === 'messages') {
      const next = forced.shift();
      if (next === 'hang') return;
      if (next) return answer(res, next.status, next.body);
      if (!(fields.user! in options.users))
        return answer(res, 400, {
          status: 0,
          user: 'invalid',
          errors: ['user identifier is not a valid user, group, or subscribed user key'],
          request: randomUUID(),
        });
      if (fields.priority !== '2') return answer(res, 200, { status: 1, request: randomUUID() });
      const receipt = receiptId();
      const now = Date.now();
      const tags = (fields.tags ?? '').split(',').filter(Boolean);
      alarms.set(receipt, { receipt, user: fields.user!, tags, sentAt: now, expiresAt: now + Number(fields.expire) * 1000, cancelled: false });
      return answer(res, 200, { status: 1, request: randomUUID(), receipt });
    }
    if (endpoint === 'validate') {
      const devices = options.users[fields.user ?? ''];
      if (!devices) return answer(res, 400, { status: 0, user: 'invalid', errors: ['user key is invalid'], request: randomUUID() });
      return answer(res, 200, { status: 1, group: 0, devices, licenses: ['Android', 'iOS'], request: randomUUID() });
    }
    if (endpoint === 'sounds')
      return soundsStatus === 200 ? answer(res, 200, { status: 1, sounds, request: randomUUID() }) : answer(res, soundsStatus, { status: 0, errors: ['down'] });
    if (byTag) {
      const tag = decodeURIComponent(byTag[1]!);
      let canceled = 0;
      for (const alarm of alarms.values()) {
        if (!alarm.tags.includes(tag) || alarm.cancelled || alarm.acknowledged || Date.now() >= alarm.expiresAt) continue;
        alarm.cancelled = true;
        canceled++;
      }
      return answer(res, 200, { status: 1, canceled, request: randomUUID() });
    }
    const alarm = receiptMatch ? alarms.get(receiptMatch[1]!) : undefined;
    if (!alarm) return answer(res, 404, { status: 0, errors: ['receipt not found; may be invalid or expired'], request: randomUUID() });
    if (endpoint === 'cancel') {
      alarm.cancelled = true;
      return answer(res, 200, { status: 1, request: randomUUID() });
    }
    const expired = alarm.cancelled || Date.now() >= alarm.expiresAt;
    const secs = (ms: number) => Math.floor(ms / 1000);
    return answer(res, 200, {
      status: 1,
      acknowledged: alarm.acknowledged ? 1 : 0,
      acknowledged_at: alarm.acknowledged ? secs(alarm.acknowledged.at) : 0,
      acknowledged_by: alarm.acknowledged?.by ?? '',
      acknowledged_by_device: alarm.acknowledged?.device ?? '',
      last_delivered_at: secs(alarm.sentAt),
      expired: expired ? 1 : 0,
      expires_at: secs(alarm.expiresAt),
      called_back: 0,
      called_back_at: 0,
      request: randomUUID(),
    });
  };

  const server = await startLocalServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const query = Object.fromEntries(new URL(req.url ?? '/', 'http://x').searchParams);
      const type = req.headers['content-type'] ?? '';
      const parse: Promise<Record<string, string>> = type.startsWith('multipart/')
        ? readForm({ headers: req.headers, body }).then((form: ParsedForm) => form.fields)
        : Promise.resolve(Object.fromEntries(new URLSearchParams(body.toString('utf8'))));
      void parse.then(
        (fields) => {
          const delay = options.messageDelayMs ?? 0;
          if (delay > 0 && req.url?.startsWith('/1/messages.json')) setTimeout(() => handle(req, res, { ...query, ...fields }), delay);
          else handle(req, res, { ...query, ...fields });
        },
        () => answer(res, 400, { status: 0, errors: ['unreadable form'] }),
      );
    });
  });

  return {
    url: server.url,
    calls,
    close: () => server.close(),
    /** Calls of one endpoint (optionally for one receipt). */
    count(endpoint: ApiCall['endpoint'], receipt?: string): number {
      return calls.filter((c) => c.endpoint === endpoint && (receipt === undefined || c.receipt === receipt)).length;
    },
    /** The phone's owner acknowledges the alarm. */
    acknowledge(receipt: string, by: string, device: string): void {
      const alarm = alarms.get(receipt);
      if (!alarm) throw new Error(`no alarm ${receipt}`);
      alarm.acknowledged = { at: Date.now(), by, device };
    },
    alarm: (receipt: string) => alarms.get(receipt),
    /** The next message requests answer these instead. */
    force(...answers: Forced[]): void {
      forced.push(...answers);
    },
    failSounds(status: number): void {
      soundsStatus = status;
    },
  };
}
