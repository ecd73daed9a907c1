import nock from 'nock';

// Every test file, both projects: nothing reaches the network. Pushover is nock or a fake on loopback, and the tests
// call the servers they start on 127.0.0.1 (supertest, fetch, node:http), so loopback stays open.
nock.disableNetConnect();
nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
