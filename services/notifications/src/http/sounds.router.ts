import { type Api, z } from '@homeops/common';
import type { PushProvider } from '../domain/push-provider.js';

const SoundListSchema = z
  .object({
    sounds: z.array(z.object({ name: z.string(), description: z.string() })),
    source: z
      .enum(['pushover', 'built-in'])
      .openapi({ description: "pushover: the app's own list, read at start and daily; built-in: Pushover's standard sounds" }),
    fetchedAt: z.string().nullable(),
  })
  .openapi('SoundList');

/**
 * GET /sounds: the names `sound` accepts, as Pushover lists them for this app (custom sounds included);
 * `defaultSounds` (name to description) when the provider keeps no list of its own.
 */
export function registerSoundRoutes(api: Api, provider: PushProvider, defaultSounds: Record<string, string>): void {
  api.route({
    method: 'get',
    path: '/sounds',
    summary: 'The sound names a notification may use',
    tags: ['notifications'],
    responses: { 200: { description: 'The sounds', schema: SoundListSchema } },
    handler: (_input, _req, res) => {
      const list = provider.soundList?.() ?? { sounds: defaultSounds, source: 'built-in' as const, fetchedAt: null };
      const sounds = Object.entries(list.sounds).map(([name, description]) => ({ name, description }));
      res.json({ sounds, source: list.source, fetchedAt: list.fetchedAt });
    },
  });
}
