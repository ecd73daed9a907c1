import { afterAll, afterEach } from 'vitest';
import { runAfterTest } from './after-test.js';
import { checkChildrenStopped } from './child-ledger.js';

// A setup file runs before each test file, also when the files of a worker share their modules; its after-hooks
// run after the file's own.
afterEach(runAfterTest);
afterAll(() => checkChildrenStopped());
