import type { DomainFamily } from '../../../domain/device-family.js';
import { ChannelCommands } from './channel-commands.js';

/** Switches and plugs, as the device service builds them: toggle and on/off of their channels. */
export const SWITCHES: DomainFamily<ChannelCommands> = {
  capability: 'switch',
  // A device is `controllable` when it can be switched (and is reachable); the other families check their own capability.
  controlFlag: 'switchable',
  create: (deps) => new ChannelCommands(deps),
};
