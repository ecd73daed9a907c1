/** The common error body every route answers with. */
export interface ErrorBody {
  error: string;
  solution: string;
  details?: Array<{ path: string; message: string }>;
}

/** A request the service refused or could not serve: its status and error body. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.error);
  }
}

export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

// Per tab and gone with it: the key is never in a URL, a cookie or localStorage.
const KEY_STORAGE = 'homeops.apiKey';

/**
 * fetch with the API key as a header. A 401 tells listeners the key is needed; once one is entered, `version`
 * grows, and pages reload what they show.
 */
export class ApiClient {
  keyNeeded = false;
  version = 0;
  private readonly listeners = new Set<() => void>();

  get hasKey(): boolean {
    return sessionStorage.getItem(KEY_STORAGE) !== null;
  }

  setKey(key: string): void {
    sessionStorage.setItem(KEY_STORAGE, key);
    this.keyNeeded = false;
    this.version += 1;
    this.notify();
  }

  /** Called whenever `keyNeeded` or `version` changes; answers the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const key = sessionStorage.getItem(KEY_STORAGE);
    if (key !== null) headers.set('X-API-Key', key);
    const response = await fetch(path, { ...init, headers });
    if (response.status === 401 && !this.keyNeeded) {
      this.keyNeeded = true;
      this.notify();
    }
    return response;
  }

  /** A JSON request; answers the parsed body, or throws ApiProblem with the error body. */
  async json<T>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>> {
    const init: RequestInit = { method, headers: { Accept: 'application/json' } };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { ...init.headers, 'Content-Type': 'application/json' };
    }
    return this.send<T>(path, init);
  }

  /** Any request whose answer is JSON (a multipart upload, say). */
  async send<T>(path: string, init: RequestInit): Promise<ApiResponse<T>> {
    const response = await this.fetch(path, init);
    const text = await response.text();
    const parsed: unknown = text === '' ? null : safeParse(text);
    if (!response.ok) throw new ApiProblem(response.status, asErrorBody(parsed, response));
    return { status: response.status, headers: response.headers, body: parsed as T };
  }

  /** A file the service serves behind the key (an attachment), as a Blob. */
  async blob(path: string): Promise<Blob> {
    const response = await this.fetch(path);
    if (!response.ok) throw new ApiProblem(response.status, asErrorBody(safeParse(await response.text()), response));
    return response.blob();
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function asErrorBody(parsed: unknown, response: Response): ErrorBody {
  const body = parsed as Partial<ErrorBody> | null;
  if (body && typeof body.error === 'string') return { solution: '', ...body } as ErrorBody;
  return { error: `HTTP ${response.status} ${response.statusText}`.trim(), solution: 'Retry; see the service log if it persists' };
}
