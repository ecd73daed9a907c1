import { type Agent, request } from 'node:http';

/** One JSON request to a service on 127.0.0.1 over `agent`; resolves status and body text, rejects on a network error. */
export function httpCall(agent: Agent, port: number, method: string, path: string, body?: object): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.setTimeout(15_000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}
