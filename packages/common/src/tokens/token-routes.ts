import type { Api } from '../api.js';
import { AppError } from '../errors.js';
import { sendJson } from '../send-json.js';
import { z } from '../zod.js';
import { GrantSchema, GrantsSchema } from './scopes.js';
import type { TokenRegistry, TokenSettings } from './token-registry.js';

const TokenViewSchema = z
  .object({
    id: z.string(),
    label: z.string(),
    scopes: z.array(GrantSchema),
    createdAt: z.string(),
    expiresAt: z.string().nullable(),
    lastUsedAt: z.string().nullable().openapi({ description: 'The last request made with it (written back at most once a minute)' }),
  })
  .openapi('Token');

const SecretSchema = z.object({
  token: TokenViewSchema,
  secret: z.string().openapi({ description: 'The token itself: shown this once, kept only as a hash' }),
});

const Label = z.string().trim().min(1).max(100);
const ExpiresAt = z.iso.datetime({ offset: true }).nullable();
/** Longest a token may be given at creation through expiresInDays (ten years). */
const MAX_DAYS = 3650;

const CreateBodySchema = z
  .object({
    label: Label,
    scopes: GrantsSchema,
    expiresAt: ExpiresAt.optional(),
    expiresInDays: z.number().int().min(1).max(MAX_DAYS).optional(),
  })
  .strict()
  .refine((body) => body.expiresAt === undefined || body.expiresInDays === undefined, 'give expiresAt or expiresInDays, not both');

const UpdateBodySchema = z.object({ label: Label.optional(), scopes: GrantsSchema.optional(), expiresAt: ExpiresAt.optional() }).strict();

/** What reading a JSON body can answer, besides the fields' own VALIDATION_FAILED. */
const BODY_ERRORS = ['LIMIT_REACHED', 'MALFORMED_JSON', 'JSON_TOO_DEEP', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'TOKENS_NOT_SAVED'] as const;

const IdParams = z.object({ id: z.string().regex(/^[0-9a-f]{12}$/, 'must be a token id from GET /tokens') });

const MeSchema = z.object({
  kind: z.enum(['open', 'key', 'token']).openapi({ description: 'open: the service has no key; key: the API key; token: a scoped token' }),
  label: z.string().nullable(),
  scopes: z.array(GrantSchema),
});

/** Whatever the client sends, an expiry must lie ahead. */
function futureExpiry(expiresAt: string | null | undefined, now: number): string | null | undefined {
  if (expiresAt === undefined || expiresAt === null) return expiresAt;
  const at = Date.parse(expiresAt);
  if (at <= now) {
    throw new AppError('VALIDATION_FAILED', 'expiresAt must lie in the future', { details: [{ path: 'body.expiresAt', message: 'must lie in the future' }] });
  }
  return new Date(at).toISOString();
}

/** `/tokens` (admin) and `/auth/me` (any caller): scoped tokens managed without a restart. */
export function registerTokenRoutes(api: Api, tokens: TokenRegistry): void {
  const now = () => tokens.now();
  api.route({
    method: 'get',
    path: '/auth/me',
    summary: 'Who the presented key or token is and what it may do (the dashboards show and disable by it)',
    access: 'authenticated',
    tags: ['tokens'],
    responses: { 200: { description: 'The caller', schema: MeSchema } },
    handler: ({ principal }, _req, res) => {
      const kind = principal.kind === 'anonymous' ? 'open' : principal.kind;
      sendJson(res, 200, { kind, label: principal.label ?? null, scopes: principal.scopes });
    },
  });
  api.route({
    method: 'get',
    path: '/tokens',
    summary: 'The scoped tokens (never their secrets)',
    access: 'admin',
    tags: ['tokens'],
    responses: { 200: { description: 'Every token', schema: z.object({ tokens: z.array(TokenViewSchema) }) } },
    handler: (_input, _req, res) => sendJson(res, 200, { tokens: tokens.list() }),
  });
  api.route({
    method: 'post',
    path: '/tokens',
    summary: 'Creates a token with a label, scopes (with their limits) and an optional expiry; its secret is shown once',
    access: 'admin',
    tags: ['tokens'],
    body: CreateBodySchema,
    errors: [...BODY_ERRORS],
    responses: { 201: { description: 'The token and its secret', schema: SecretSchema } },
    handler: async ({ body }, _req, res) => {
      const expiresAt =
        body.expiresInDays !== undefined ? new Date(now() + body.expiresInDays * 86_400_000).toISOString() : (futureExpiry(body.expiresAt, now()) ?? null);
      const settings: TokenSettings = { label: body.label, scopes: body.scopes, expiresAt };
      res.setHeader('Cache-Control', 'no-store');
      sendJson(res, 201, await tokens.create(settings));
    },
  });
  api.route({
    method: 'patch',
    path: '/tokens/{id}',
    summary: "Changes a token's label, scopes or expiry (its open streams end; the secret stays)",
    access: 'admin',
    tags: ['tokens'],
    params: IdParams,
    body: UpdateBodySchema,
    errors: ['TOKEN_NOT_FOUND', ...BODY_ERRORS],
    responses: { 200: { description: 'The token', schema: TokenViewSchema } },
    handler: async ({ params, body }, _req, res) => {
      const change: Partial<TokenSettings> = {
        ...(body.label !== undefined ? { label: body.label } : {}),
        ...(body.scopes !== undefined ? { scopes: body.scopes } : {}),
        ...(body.expiresAt !== undefined ? { expiresAt: futureExpiry(body.expiresAt, now()) ?? null } : {}),
      };
      sendJson(res, 200, await tokens.update(params.id, change));
    },
  });
  api.route({
    method: 'post',
    path: '/tokens/{id}/rotate',
    summary: 'Gives a token a new secret, shown once; the old one is refused from now on',
    access: 'admin',
    tags: ['tokens'],
    params: IdParams,
    errors: ['TOKEN_NOT_FOUND', 'TOKENS_NOT_SAVED'],
    responses: { 200: { description: 'The token and its new secret', schema: SecretSchema } },
    handler: async ({ params }, _req, res) => {
      res.setHeader('Cache-Control', 'no-store');
      sendJson(res, 200, await tokens.rotate(params.id));
    },
  });
  api.route({
    method: 'delete',
    path: '/tokens/{id}',
    summary: 'Revokes a token: refused at once, its open streams end',
    access: 'admin',
    tags: ['tokens'],
    params: IdParams,
    errors: ['TOKEN_NOT_FOUND', 'TOKENS_NOT_SAVED'],
    responses: { 204: { description: 'Revoked' } },
    handler: async ({ params }, _req, res) => {
      await tokens.revoke(params.id);
      res.status(204).end();
    },
  });
}
