import { z } from '@homeops/common';
import type { WatchBody } from '../domain/watches/watch-spec.js';

const device = z.string().min(1).max(128);
const minutes = z
  .number()
  .min(0)
  .max(7 * 24 * 60);
const sensor = z.string().min(1).max(64);
const poll = (fallback: number) => z.number().int().min(10).max(86_400).default(fallback);

export const WatchConditionSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('doorOpen'), device, channel: z.number().int().min(0).max(7).default(0), minutes }).strict(),
  z.object({ kind: z.literal('offline'), device, minutes }).strict(),
  z
    .object({
      kind: z.literal('powerBelow'),
      device,
      watts: z.number().min(0).max(100_000),
      minutes,
      afterAbove: z.number().min(0).max(100_000).optional(),
      pollSeconds: poll(120),
    })
    .strict(),
  z
    .object({ kind: z.literal('batteryBelow'), device, sensor: z.string().min(1).max(64), percent: z.number().min(0).max(100), pollSeconds: poll(3_600) })
    .strict(),
  z
    .object({
      kind: z.literal('temperature'),
      device,
      sensor: z.string().min(1).max(64),
      above: z.number().min(-50).max(150).optional(),
      below: z.number().min(-50).max(150).optional(),
      minutes,
      pollSeconds: poll(600),
    })
    .strict()
    .refine((c) => (c.above === undefined) !== (c.below === undefined), 'give above or below, one of them'),
  z.object({ kind: z.literal('leak'), device, sensor }).strict(),
  z.object({ kind: z.literal('smoke'), device, sensor }).strict(),
  z
    .object({
      kind: z.literal('open'),
      device,
      sensor,
      seconds: z
        .number()
        .min(0)
        .max(7 * 86_400),
    })
    .strict(),
]);

export const WatchBodySchema = z
  .object({
    condition: WatchConditionSchema,
    notify: z
      .object({
        recipient: z.string().min(1).max(256),
        priority: z
          .number()
          .int()
          .min(-2)
          .max(2)
          .optional()
          .openapi({ description: "-2 to 2; default the condition's: 2 for leak, smoke and open (an alarm rings until acknowledged), else 0" }),
        sound: z.string().min(1).max(64).optional(),
        title: z.string().min(1).max(250).optional(),
        message: z.string().min(1).max(1024).optional(),
        escalate: z
          .array(z.object({ recipient: z.string().min(1).max(256), afterSeconds: z.number().int().min(60) }).strict())
          .min(1)
          .max(5)
          .refine(
            (steps) => steps.every((step, i) => i === 0 || step.afterSeconds > steps[i - 1]!.afterSeconds),
            'afterSeconds must increase from step to step',
          )
          .optional()
          .openapi({
            description:
              'Priority 2 only: while nobody acknowledges the alarm, it goes on to each recipient this many seconds after the first (the notification service escalates it)',
          }),
      })
      .strict(),
    clearSeconds: z.number().int().min(0).max(86_400).default(60),
  })
  .strict()
  .openapi('WatchBody') satisfies z.ZodType<WatchBody, unknown>;

export const WatchNameSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be lowercase letters, digits and dashes');

/** A watch of WATCHES_FILE, checked as PUT /watches checks it; throws naming the watch and the field. */
export function parseWatch(name: string, body: unknown): WatchBody & { name: string } {
  const checkedName = WatchNameSchema.safeParse(name);
  if (!checkedName.success) throw new Error(`watch "${name}": the name ${checkedName.error.issues[0]!.message}`);
  const checked = WatchBodySchema.safeParse(body);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new Error(`watch "${name}": ${issue.path.join('.')} ${issue.message}`);
  }
  return { name, ...checked.data };
}
