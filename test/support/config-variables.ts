import { ConfigSchema as DeviceControlConfig } from '../../services/device-control/src/config.js';
import { ConfigSchema as NotificationsConfig } from '../../services/notifications/src/config.js';

/** The variable names a service's config schema reads, found through its preprocess/transform wrappers. */
export function schemaVariables(schema: unknown): string[] {
  const seen = new Set<unknown>();
  const visit = (node: unknown): string[] => {
    if (!node || typeof node !== 'object' || seen.has(node)) return [];
    seen.add(node);
    const def = (node as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
    if (!def) return [];
    if (def.type === 'object') return Object.keys(def.shape as object);
    return [def.in, def.out, def.innerType, def.schema].flatMap(visit);
  };
  return visit(schema);
}

/** The variables each service's config schema reads. */
export const serviceVariables = {
  'device-control': schemaVariables(DeviceControlConfig),
  notifications: schemaVariables(NotificationsConfig),
};
