import { z } from '../zod.js';

/** What a token may do; `admin` may do everything, tokens included. */
export const SCOPES = ['admin', 'metrics', 'devices:read', 'devices:control', 'notifications:send', 'notifications:read'] as const;
export type Scope = (typeof SCOPES)[number];

/** Who may call a route: anyone, any valid key or token, or one holding the scope. */
export type RouteAccess = 'public' | 'authenticated' | Scope;

const Names = z.array(z.string().min(1).max(200)).min(1).max(200);

const LIMITS = ['devices', 'families', 'exceptFamilies', 'recipients', 'maxPriority', 'createsPerMinute'] as const;

// Which limits each scope takes; the others are refused rather than silently ignored.
const LIMITS_OF: Record<Scope, ReadonlyArray<(typeof LIMITS)[number]>> = {
  admin: [],
  metrics: [],
  'devices:read': [],
  'devices:control': ['devices', 'families', 'exceptFamilies'],
  'notifications:send': ['recipients', 'maxPriority', 'createsPerMinute'],
  'notifications:read': ['recipients'],
};

/** One scope of a token with its limits: device uuids and families for control, recipients for send and read. */
export const GrantSchema = z
  .object({
    scope: z.enum(SCOPES),
    /** devices:control: only these device uuids. */
    devices: Names.optional(),
    /** devices:control: only commands of these families (e.g. switch, light). */
    families: Names.optional(),
    /** devices:control: never commands of these families (e.g. garageDoor). */
    exceptFamilies: Names.optional(),
    /** notifications:send / notifications:read: only these recipients. */
    recipients: Names.optional(),
    /** notifications:send: no priority above this one (-2 to 2; 1 keeps the token from ringing an emergency). */
    maxPriority: z.number().int().min(-2).max(2).optional(),
    /** notifications:send: at most this many sends a minute (creates, resends, hook calls, scheduled sends); then 429. */
    createsPerMinute: z.number().int().min(1).max(10_000).optional(),
  })
  .strict()
  .superRefine((grant, ctx) => {
    for (const key of LIMITS) {
      if (grant[key] !== undefined && !LIMITS_OF[grant.scope].includes(key)) {
        ctx.addIssue({ code: 'custom', path: [key], message: `does not apply to the ${grant.scope} scope` });
      }
    }
  })
  .openapi('Grant');
export type Grant = z.infer<typeof GrantSchema>;

/** A grant as a client writes it: the bare scope name, or the object with limits. */
export const GrantInputSchema = z.union([z.enum(SCOPES).transform((scope): Grant => ({ scope })), GrantSchema]);

/** The grants of one token: each scope at most once. */
export const GrantsSchema = z
  .array(GrantInputSchema)
  .min(1)
  .max(SCOPES.length)
  .refine((grants) => new Set(grants.map((g) => g.scope)).size === grants.length, 'must name each scope once');
