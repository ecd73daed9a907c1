import type { EnvAliases } from '../../packages/common/src/config.js';
import { ConfigSchema as DeviceControlConfig, ENV_ALIASES as DEVICE_CONTROL_ALIASES } from '../../services/device-control/src/config.js';
import { ConfigSchema as NotificationsConfig, ENV_ALIASES as NOTIFICATIONS_ALIASES } from '../../services/notifications/src/config.js';

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

/** The other names the alias table reads. */
export function aliasNames(aliases: EnvAliases): string[] {
  return Object.values(aliases).flatMap((list) => list.map((entry) => (typeof entry === 'string' ? entry : entry.name)));
}

/** The variables each service's config schema reads. */
export const serviceVariables = {
  'device-control': schemaVariables(DeviceControlConfig),
  notifications: schemaVariables(NotificationsConfig),
};

/** The older names each service also reads (its port variable included where the alias table has it). */
export const serviceAliases = {
  'device-control': aliasNames(DEVICE_CONTROL_ALIASES),
  notifications: aliasNames(NOTIFICATIONS_ALIASES),
};
