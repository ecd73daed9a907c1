export { ApiClient, ApiProblem, type ApiResponse, type ErrorBody } from './api-client.js';
export { openEventStream, type StreamEvent, type StreamHandlers, type StreamState } from './event-stream.js';
export { ErrorNote, toErrorBody } from './error-note.js';
export { KeyPrompt } from './key-prompt.js';
export { localTime, timeFromNow } from './time.js';
export { useClientState } from './use-client.js';
