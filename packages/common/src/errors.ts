/** Every failure a client can see, as a string code; `ERROR_TABLE` maps it to HTTP. */
export type ErrorCode =
  | 'VALIDATION_FAILED'
  | 'MALFORMED_JSON'
  | 'JSON_TOO_DEEP'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'UNAUTHORIZED'
  | 'SCOPE_MISSING'
  | 'TOKEN_NOT_FOUND'
  | 'TOKENS_NOT_SAVED'
  | 'TOO_MANY_AUTH_FAILURES'
  | 'CROSS_ORIGIN_REFUSED'
  | 'HOST_NOT_ALLOWED'
  | 'TOO_MANY_STREAMS'
  | 'SERVER_BUSY'
  | 'ROUTE_NOT_FOUND'
  | 'DEVICE_NOT_FOUND'
  | 'DEVICE_NOT_CONTROLLABLE'
  | 'WATCH_NOT_FOUND'
  | 'WATCH_OVER_BUDGET'
  | 'WATCHES_OFF'
  | 'CLOUD_UNAVAILABLE'
  | 'CLOUD_TIMEOUT'
  | 'CLOUD_ERROR'
  | 'COMMAND_BUDGET_EXHAUSTED'
  | 'SYNC_TOO_SOON'
  | 'TOO_MANY_CREATES'
  | 'MFA_CODE_REJECTED'
  | 'CLOUD_LOGIN_NOT_NEEDED'
  | 'NOTIFICATION_NOT_FOUND'
  | 'HOOK_TEMPLATE_NOT_FOUND'
  | 'ALERT_FIRED_BY_ANOTHER'
  | 'PLAN_NOT_FOUND'
  | 'LIMIT_REACHED'
  | 'RECIPIENT_NOT_MAPPED'
  | 'NOTIFICATION_NOT_RESENDABLE'
  | 'ATTACHMENT_NOT_FOUND'
  | 'NOTIFICATION_EXISTS'
  | 'STORAGE_UNAVAILABLE'
  | 'STORAGE_FULL'
  | 'INTERNAL';

interface ErrorEntry {
  status: number;
  error: string;
  solution: string;
}

/** The one place where error codes become HTTP statuses and default texts. */
export const ERROR_TABLE: Record<ErrorCode, ErrorEntry> = {
  VALIDATION_FAILED: { status: 400, error: 'Invalid request', solution: 'Fix the fields listed in details and retry' },
  MALFORMED_JSON: { status: 400, error: 'Malformed JSON body', solution: 'Send a valid JSON document with Content-Type: application/json' },
  JSON_TOO_DEEP: { status: 400, error: 'JSON nested too deeply', solution: 'Send JSON nested at most 32 levels deep' },
  PAYLOAD_TOO_LARGE: { status: 413, error: 'Request body too large', solution: 'Send a smaller body' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, error: 'Unsupported content type', solution: 'Send the body as application/json' },
  UNAUTHORIZED: {
    status: 401,
    error: 'Missing or invalid API key or token',
    solution: 'Send the API key or a token as "Authorization: Bearer <key>" or "X-API-Key: <key>"',
  },
  SCOPE_MISSING: { status: 403, error: 'This token lacks the scope this needs', solution: 'Use a token with the scope named in the error' },
  TOKEN_NOT_FOUND: { status: 404, error: 'Token not found', solution: 'List the tokens with GET /tokens' },
  TOKENS_NOT_SAVED: {
    status: 503,
    error: 'The tokens could not be saved',
    solution: "Check that TOKENS_FILE's folder exists and is writable and the disk has room, then retry",
  },
  TOO_MANY_AUTH_FAILURES: {
    status: 429,
    error: 'Too many wrong API keys from this address',
    solution: 'Wait for the time given in Retry-After, then send the right key',
  },
  CROSS_ORIGIN_REFUSED: {
    status: 403,
    error: 'Request from another web origin refused',
    solution: "Send changes from this service's own dashboard, or from a script (curl, Node-RED, Home Assistant), not from another site's page",
  },
  HOST_NOT_ALLOWED: {
    status: 421,
    error: 'Host name not allowed',
    solution: 'Use the IP address, localhost, a .local/.lan/.home.arpa/.internal name, or add the name to ALLOWED_HOSTS',
  },
  TOO_MANY_STREAMS: { status: 429, error: 'Too many open event streams', solution: 'Close other event streams (tabs, scripts) and retry after Retry-After' },
  SERVER_BUSY: { status: 503, error: 'Too many large requests at once', solution: 'Retry after the time given in Retry-After' },
  ROUTE_NOT_FOUND: { status: 404, error: 'Route not found', solution: 'See /docs for the list of routes' },
  DEVICE_NOT_FOUND: { status: 404, error: 'Device not found', solution: 'Run POST /devices/sync, then GET /devices for the known uuids' },
  DEVICE_NOT_CONTROLLABLE: { status: 409, error: 'Device not controllable', solution: 'Check synchronization' },
  WATCH_NOT_FOUND: { status: 404, error: 'Watch not found', solution: 'List the watches with GET /watches' },
  WATCH_OVER_BUDGET: {
    status: 409,
    error: "The watch's readings would not fit the message budget",
    solution: 'Raise pollSeconds, remove another watch, or reach the device over the LAN',
  },
  WATCHES_OFF: {
    status: 409,
    error: 'Watches are off: nowhere to send their notifications',
    solution: 'Set NOTIFY_URL (the notification service) and NOTIFY_TOKEN (a notifications:send token), then restart',
  },
  CLOUD_UNAVAILABLE: { status: 503, error: 'Cloud session not available', solution: 'Retry after the time given in Retry-After; see /health' },
  CLOUD_TIMEOUT: { status: 504, error: 'The cloud did not answer in time', solution: 'Check that the device is online and retry' },
  CLOUD_ERROR: { status: 502, error: 'The cloud answered with an error', solution: 'See the error text; retry later or check the device in the vendor app' },
  COMMAND_BUDGET_EXHAUSTED: { status: 429, error: 'Command budget exhausted', solution: 'Retry after the time given in Retry-After' },
  SYNC_TOO_SOON: { status: 429, error: 'The device list was synchronized moments ago', solution: 'Retry after the time given in Retry-After' },
  TOO_MANY_CREATES: {
    status: 429,
    error: "This token's notification rate is used up",
    solution: 'Retry after the time given in Retry-After, or ask an admin for a token with a higher rate',
  },
  MFA_CODE_REJECTED: { status: 400, error: 'MFA code rejected', solution: 'Send the code your authenticator app shows now (codes change every 30 s)' },
  CLOUD_LOGIN_NOT_NEEDED: { status: 409, error: 'No login needed', solution: 'See /health: only a session waiting for an MFA code takes one' },
  NOTIFICATION_NOT_FOUND: { status: 404, error: 'Notification not found', solution: 'Check the id; list notifications with GET /notifications/:recipient' },
  LIMIT_REACHED: {
    status: 409,
    error: 'Too many kept already',
    solution: 'Remove some (the error names what and how many may be kept), then retry',
  },
  PLAN_NOT_FOUND: {
    status: 404,
    error: 'No such scheduled send or heartbeat',
    solution: 'List them with GET /scheduled and GET /heartbeats; a scheduled send that went out is in the history',
  },
  HOOK_TEMPLATE_NOT_FOUND: {
    status: 404,
    error: 'No such webhook template',
    solution: 'Use alertmanager, grafana, uptime-kuma or generic, or a template of HOOK_TEMPLATES_FILE (docs/webhooks.md)',
  },
  ALERT_FIRED_BY_ANOTHER: {
    status: 403,
    error: 'This alert was fired by another sender',
    solution: 'Resolve it with the token (or key) that fired it, or with an admin key; or acknowledge it on the phone',
  },
  RECIPIENT_NOT_MAPPED: {
    status: 400,
    error: 'Recipient not in the recipient map',
    solution: 'Add the recipient to RECIPIENTS_FILE (or RECIPIENTS), or set UNMAPPED_RECIPIENTS=default to send it to PROVIDER_USER_KEY',
  },
  NOTIFICATION_NOT_RESENDABLE: {
    status: 409,
    error: 'Notification cannot be resent',
    solution: 'Only a delivery that is failed, expired or unknown can be resent; see its delivery.status',
  },
  NOTIFICATION_EXISTS: { status: 409, error: 'Notification already stored', solution: 'Ids are unique: this one is in the history already' },
  ATTACHMENT_NOT_FOUND: { status: 404, error: 'Attachment not found', solution: 'This notification has no attachment' },
  STORAGE_UNAVAILABLE: {
    status: 503,
    error: 'Notification history cannot be written',
    solution: 'Check disk space and permissions of the storage path; see /health',
  },
  STORAGE_FULL: { status: 507, error: 'Attachment storage is full', solution: 'Delete old notifications with attachments, or raise ATTACHMENTS_MAX_BYTES' },
  INTERNAL: { status: 500, error: 'Internal server error', solution: 'Retry later; if it persists, report it with the X-Request-Id of this response' },
};

/** One field-level problem, as listed in `details` of a validation failure. */
export interface ErrorDetail {
  path: string;
  message: string;
}

export interface AppErrorOptions {
  solution?: string;
  details?: ErrorDetail[];
  retryAfterSeconds?: number;
  cause?: unknown;
}

/** The only error type the services throw on purpose; its code decides the HTTP answer. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly solution: string;
  readonly details: ErrorDetail[] | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message?: string, options: AppErrorOptions = {}) {
    super(message ?? ERROR_TABLE[code].error, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.solution = options.solution ?? ERROR_TABLE[code].solution;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get status(): number {
    return ERROR_TABLE[this.code].status;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
