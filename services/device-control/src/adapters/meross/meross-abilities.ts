/** What a device declares it understands: the namespaces of its Appliance.System.Ability answer, with their details. */
export type Abilities = ReadonlyMap<string, unknown>;

/** The value as an object, or null. */
export function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
}

/** The objects of a payload's list (or of its single entry). */
export function entries(value: unknown): Array<Record<string, unknown>> {
  return (Array.isArray(value) ? value : [value]).flatMap((e) => (record(e) ? [record(e)!] : []));
}

/** An entry's channel; 0 where it names none. */
export const channelOf = (e: Record<string, unknown>) => (typeof e.channel === 'number' && Number.isInteger(e.channel) ? e.channel : 0);

/** The namespaces of an Appliance.System.Ability answer; null when it is not one. */
export function parseAbilities(payload: unknown): Abilities | null {
  const ability = record(record(payload)?.ability);
  return ability ? new Map(Object.entries(ability)) : null;
}
