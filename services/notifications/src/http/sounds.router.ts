import type { Api } from '@homeops/common';
import type { PushProvider } from '../domain/push-provider.js';
import { SoundListSchema } from './response.schemas.js';

/**
 * GET /sounds: the names `sound` accepts, as Pushover lists them for this app (custom sounds included);
 * `defaultSounds` (name to description) when the provider keeps no list of its own.
 */
export function registerSoundRoutes(api: Api, provider: PushProvider, defaultSounds: Record<string, string>): void {
  api.route({
    method: 'get',
    path: '/sounds',
    summary: 'The sound names a notification may use',
    access: 'notifications:send',
    tags: ['notifications'],
    responses: { 200: { description: 'The sounds', schema: SoundListSchema } },
    handler: (_input, _req, res) => {
      const list = provider.soundList?.() ?? { sounds: defaultSounds, source: 'built-in' as const, fetchedAt: null };
      const sounds = Object.entries(list.sounds).map(([name, description]) => ({ name, description }));
      res.json({ sounds, source: list.source, fetchedAt: list.fetchedAt });
    },
  });
}
