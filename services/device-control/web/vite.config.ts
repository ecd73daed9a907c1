// By path, not package name: Vite bundles a config's relative imports but hands package imports to Node, which cannot load .ts.
import { dashboardConfig } from '../../../packages/web-kit/src/vite-config.js';

export default dashboardConfig(import.meta.dirname);
