import fc from 'fast-check';
import { sendRaw } from './raw-http.js';
import { startRealService, makeStorageDir } from './running-service.js';
let last = '';
let found = 0;
process.on('uncaughtException', (e) => { if (found++ < 3) console.log('UNCAUGHT', e.message, JSON.stringify(last)); });
const s = await startRealService(await makeStorageDir());
const part = fc.record({
  name: fc.constantFrom('recipient', 'message', 'title', 'priority', 'attachment', 'html', 'ttl', '', '__proto__'),
  filename: fc.option(fc.constantFrom('a.png', '../../etc/passwd', '', 'é.txt', '%00')),
  type: fc.option(fc.constantFrom('image/png', 'text/plain', '')),
  value: fc.oneof(fc.string({ maxLength: 50 }), fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('latin1'))),
});
const samples = fc.sample(fc.tuple(fc.array(part, { maxLength: 5 }), fc.boolean(), fc.constantFrom('xyz', 'a b', '-'.repeat(80), '')), { numRuns: 300, seed: 1 });
for (const [parts, terminate, boundary] of samples) {
  const lines = parts.map((p) => [`--${boundary}`, `Content-Disposition: form-data; name="${p.name}"${p.filename === null ? '' : `; filename="${p.filename}"`}`, ...(p.type === null ? [] : [`Content-Type: ${p.type}`]), '', p.value].join('\r\n'));
  const payload = `${lines.join('\r\n')}\r\n${terminate ? `--${boundary}--\r\n` : ''}`;
  last = `boundary=${boundary} body=${payload}`;
  const r = await sendRaw(s.port, { method: 'POST', target: '/notifications', headers: [['Content-Type', `multipart/form-data; boundary=${boundary}`]], body: Buffer.from(payload, 'latin1') }).catch((e) => ({ status: -1, body: Buffer.from(String(e)) }));
  await new Promise((r) => setTimeout(r, 5));
  if (found > 0 && found < 2) console.log(r.status, r.body.toString());
}
console.log('uncaught total', found);
await s.stop();
