/** The package version, reported by /health and the API docs (the spec fixes it at 1.0.1). */
export const SERVICE_NAME = 'device-control';
export const SERVICE_VERSION = '1.0.1';
