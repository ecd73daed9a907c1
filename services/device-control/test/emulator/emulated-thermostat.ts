// An emulated Meross thermostat, its payloads as meross_lan's traces show them: an mts200b (Thermostat.Mode, tenths
// of °C; its GET asked with an empty list answers an empty list) and an mts960 (Thermostat.ModeB, hundredths of °C;
// onoff 1 on, 2 off; heating or cooling in `working`; its range in Thermostat.CtlRange). The mts200b's overheat
// protection and sensor are not in its digest: asked by GET, and pushed when they change.

/** The thermostats the emulator knows. */
export type ThermostatModel = 'mts200b' | 'mts960';
/** What changes at a thermostat: its Mode/ModeB entry, its overheat protection or the sensor it regulates on. */
export type ThermostatPart = 'mode' | 'overheat' | 'sensor';

type Entry = Record<string, number>;
type Reply = (method: string, payload: unknown) => void;

const NS = 'Appliance.Control.Thermostat.';

const ABILITIES: Record<ThermostatModel, string[]> = {
  mts200b: ['Mode', 'Calibration', 'DeadZone', 'Frost', 'Overheat', 'WindowOpened', 'Schedule', 'Sensor', 'SummerMode', 'HoldAction'].map((n) => NS + n),
  mts960: ['ModeB', 'ScheduleB', 'CtlRange', 'Calibration', 'DeadZone', 'Frost', 'Timer'].map((n) => NS + n),
};

/** One thermostat channel (0), starting as the traces do. */
export class EmulatedThermostat {
  readonly key: 'mode' | 'modeB';
  entry: Entry;
  summerMode = 1;
  windowOpen = 0;
  /** Thermostat.Overheat as the mts200b trace answers it: on, threshold 33.5 °C, its floor sensor at 35.5 °C, warning 0. */
  overheat: Entry = { channel: 0, warning: 0, value: 335, onoff: 1, min: 200, max: 700, currentTemp: 355 };
  /** Thermostat.Sensor's mode (1: the external sensor, as in the trace). */
  sensorMode = 1;
  readonly ctlRange = { channel: 0, max: 11000, min: -3000, ctlMax: 3600, ctlMin: 300 };
  /** Its CtlRange GET is answered with an ERROR (a firmware that declares it and does not serve it). */
  rangeError = false;
  /** Its Overheat GET is answered with an ERROR. */
  overheatError = false;

  constructor(readonly model: ThermostatModel) {
    this.key = model === 'mts960' ? 'modeB' : 'mode';
    this.entry =
      model === 'mts960'
        ? { channel: 0, mode: 2, targetTemp: 1800, working: 1, currentTemp: 1723, state: 1, onoff: 1, sensorStatus: 1 }
        : {
            channel: 0,
            onoff: 1,
            mode: 3,
            state: 1,
            currentTemp: 200,
            heatTemp: 210,
            coolTemp: 200,
            ecoTemp: 200,
            manualTemp: 200,
            warning: 0,
            targetTemp: 210,
            min: 50,
            max: 350,
          };
  }

  get namespace(): string {
    return NS + (this.key === 'modeB' ? 'ModeB' : 'Mode');
  }

  abilities(): string[] {
    return ABILITIES[this.model];
  }

  /** System.All's digest. */
  digest(): Record<string, unknown> {
    if (this.key === 'modeB') return { thermostat: { modeB: [this.now()] } };
    return {
      thermostat: {
        mode: [{ ...this.now(), lmTime: Math.floor(Date.now() / 1000) }],
        summerMode: [{ channel: 0, mode: this.summerMode }],
        windowOpened: [{ channel: 0, status: this.windowOpen, detect: 1, lmTime: Math.floor(Date.now() / 1000) }],
      },
    };
  }

  /** The entry as the device reports it now. */
  now(): Entry {
    return { ...this.entry };
  }

  /** A change at the device (its buttons, its schedule, the room, its floor): the payload of the push it sends. */
  change(fields: Entry, part: ThermostatPart = 'mode'): { namespace: string; payload: unknown } {
    if (part === 'overheat') {
      Object.assign(this.overheat, fields);
      return { namespace: `${NS}Overheat`, payload: { overheat: [this.overheatNow()] } };
    }
    if (part === 'sensor') {
      this.sensorMode = fields.mode ?? this.sensorMode;
      return { namespace: `${NS}Sensor`, payload: { sensor: [{ channel: 0, mode: this.sensorMode }] } };
    }
    Object.assign(this.entry, fields);
    return { namespace: this.namespace, payload: { [this.key]: [this.now()] } };
  }

  private overheatNow(): Entry {
    return { ...this.overheat, lmTime: Math.floor(Date.now() / 1000) };
  }

  /** Answers a Thermostat.* request; false for a namespace it does not have. */
  answer(method: string, namespace: string, payload: Record<string, unknown>, reply: Reply): boolean {
    if (!this.abilities().includes(namespace)) return false;
    const name = namespace.slice(NS.length);
    const key = name.charAt(0).toLowerCase() + name.slice(1);
    const asked = ([] as Array<Record<string, unknown>>).concat((payload[key] as never) ?? []);
    // Asked with an empty list (or an object), the devices answer an empty list.
    const forChannel0 = asked.some((e) => e.channel === 0);
    if (method === 'GET' && key === 'ctlRange' && this.rangeError) return (reply('ERROR', { error: { code: 5000, detail: 'unsupported' } }), true);
    if (method === 'GET' && key === 'overheat' && this.overheatError) return (reply('ERROR', { error: { code: 5000, detail: 'unsupported' } }), true);
    if (method === 'GET') {
      const state: Record<string, unknown> = {
        [this.key]: this.now(),
        summerMode: { channel: 0, mode: this.summerMode },
        windowOpened: { channel: 0, status: this.windowOpen, detect: 1 },
        ctlRange: this.ctlRange,
        overheat: this.overheatNow(),
        sensor: { channel: 0, mode: this.sensorMode },
      };
      reply('GETACK', { [key]: forChannel0 && state[key] ? [state[key]] : [] });
      return true;
    }
    // A SET wants a list, as the devices take it.
    if (method === 'SET' && key === this.key && Array.isArray(payload[key])) return this.set(asked, reply);
    reply('ERROR', { error: { code: 5000, detail: 'unsupported' } });
    return true;
  }

  private set(asked: Array<Record<string, unknown>>, reply: Reply): boolean {
    const entry = asked.find((e) => e.channel === 0);
    if (!entry) return (reply('ERROR', { error: { code: 5000, detail: 'bad channel' } }), true);
    const numbers = Object.fromEntries(Object.entries(entry).filter(([, v]) => typeof v === 'number')) as Entry;
    if (this.key === 'modeB') {
      if (numbers.onoff !== undefined && numbers.onoff !== 1 && numbers.onoff !== 2)
        return (reply('ERROR', { error: { code: 5000, detail: 'bad onoff' } }), true);
      Object.assign(this.entry, numbers);
      if (this.entry.mode === 3) this.entry.targetTemp = 0;
      // What an MTS960 answers to a SET is not in the traces: an empty SETACK.
      reply('SETACK', {});
      return true;
    }
    Object.assign(this.entry, numbers);
    const preset = ['heatTemp', 'coolTemp', 'ecoTemp', undefined, 'manualTemp'][this.entry.mode!];
    if (preset) this.entry.targetTemp = this.entry[preset]!;
    reply('SETACK', { mode: [this.now()] });
    return true;
  }
}
