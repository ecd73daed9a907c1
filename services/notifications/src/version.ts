/** The package version, reported by /health and the API docs (the spec fixes it at 0.0.7). */
export const SERVICE_NAME = 'notifications';
export const SERVICE_VERSION = '0.0.7';
