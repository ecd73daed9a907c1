import { defineConfig } from 'vitest/config';
import { tiered } from '../../vitest.shared.js';

// The Meross emulator suites, the service as a child process (e2e, faults, its entry point) and Mosquitto.
const slow = ['test/e2e/**/*.test.ts', 'test/faults/**/*.test.ts', 'test/service/main.test.ts', 'test/mqtt/mqtt-*.test.ts'];

export const projects = tiered(import.meta.dirname, 'device-control', { include: ['test/**/*.test.ts'], slow });

export default defineConfig({ test: { projects } });
