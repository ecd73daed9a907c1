import type { ControlFamily } from '../../src/http/control-families.js';
import { type Access, lacking, type ScopeChoice } from '@homeops/web-kit';
import type { Device } from './types.js';

/** The command families a devices:control grant can name (the service's, so a new one breaks this typecheck). */
const FAMILY_TEXT: Record<ControlFamily, string> = {
  switch: 'switch on and off (lights too)',
  garageDoor: 'open and close garage doors',
  cover: 'move covers',
  light: 'brightness and colour',
  hubSensors: 'valves behind a hub',
  thermostat: 'thermostats: on/off, mode and target',
};

/** Why the caller may not send this device commands of this family (its scope or the grant's limits), or null. */
export function controlBlock(access: Access, device: Device, family: ControlFamily): string | null {
  const missing = access.lacks('devices:control');
  if (missing) return missing;
  const grant = access.grant('devices:control')!;
  if (grant.devices && !grant.devices.includes(device.uuid)) return lacking('devices:control', `for ${device.name}`);
  if ((grant.families && !grant.families.includes(family)) || grant.exceptFamilies?.includes(family)) return lacking('devices:control', `for ${family}`);
  return null;
}

/** This service's scopes for the create form; the device limits are picked from the devices listed. */
export function deviceScopeChoices(devices: readonly Device[]): ScopeChoice[] {
  const families = Object.entries(FAMILY_TEXT).map(([value, hint]) => ({ value, text: value, hint }));
  return [
    { scope: 'admin', text: 'everything, tokens included' },
    { scope: 'metrics', text: 'GET /metrics' },
    { scope: 'devices:read', text: 'list the devices, their state and live events' },
    {
      scope: 'devices:control',
      text: 'switch, open, move and set devices',
      limits: [
        { field: 'devices', text: 'Only these devices', options: devices.map((d) => ({ value: d.uuid, text: d.name })) },
        { field: 'families', text: 'Only these families', options: families },
        { field: 'exceptFamilies', text: 'Never these families', options: families },
      ],
    },
  ];
}
