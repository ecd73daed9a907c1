// A Pushover stand-in in its own process, so answering it takes no time from the load generator: every messages call
// is accepted at once, users/validate and sounds answer as Pushover does. GET /stats counts the messages and how many
// carried `encrypted` (read from the raw multipart body, nothing decoded).
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

const { PORT } = process.env;
if (!PORT) throw new Error('fake-pushover: PORT is required');

const ENCRYPTED = Buffer.from('name="encrypted"');
const stats = { messages: 0, encrypted: 0 };
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const path = (req.url ?? '/').split('?')[0];
    let body: object = { status: 1, request: randomUUID() };
    if (path === '/health' || path === '/stats') body = stats;
    else if (path === '/1/sounds.json') body = { status: 1, sounds: { pushover: 'Pushover (default)' }, request: randomUUID() };
    else if (path === '/1/users/validate.json') body = { status: 1, devices: [], request: randomUUID() };
    else if (path === '/1/messages.json') {
      stats.messages += 1;
      if (Buffer.concat(chunks).includes(ENCRYPTED)) stats.encrypted += 1;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
});
server.listen(Number(PORT), '127.0.0.1', () => console.log(`fake Pushover on ${PORT}`));
server.on('error', (error) => {
  console.error(error);
  process.exit(1);
});
