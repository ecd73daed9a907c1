import { haDiscoveryProblems } from '@homeops/test-kit';
import { describe, expect, it } from 'vitest';

// The schema test-kit holds for both services' bridges: it must refuse what Home Assistant refuses (or silently
// ignores), or a passing discovery test proves nothing.
const TOPIC = 'homeassistant/device/homeops_x/config';
const valid = {
  dev: { ids: ['homeops_x'], name: 'X' },
  o: { name: 'homeops', sw: '1.0.0', url: 'http://host:9095/docs' },
  availability: [{ topic: 'homeops/x/availability' }],
  availability_mode: 'all',
  cmps: {
    power: { p: 'sensor', unique_id: 'x_power', state_topic: 'x/power', device_class: 'power', unit_of_measurement: 'W', state_class: 'measurement' },
    energy: { p: 'sensor', uniq_id: 'x_energy', stat_t: 'x/energy', dev_cla: 'energy', unit_of_meas: 'kWh', stat_cla: 'total_increasing' },
    plug: { p: 'switch', unique_id: 'x_plug', command_topic: 'x/plug/set', state_topic: 'x/plug' },
    door: { p: 'cover', unique_id: 'x_door', device_class: 'garage', command_topic: 'x/door/set' },
    press: { p: 'event', unique_id: 'x_press', state_topic: 'x/press', event_types: ['single'] },
    lamp: { p: 'light', unique_id: 'x_lamp', schema: 'json', command_topic: 'x/lamp/set', supported_color_modes: ['brightness'] },
    valve: { p: 'climate', unique_id: 'x_valve', modes: ['heat', 'off'], min_temp: 5, max_temp: 35, temp_step: 0.5 },
    online: { p: 'binary_sensor', unique_id: 'x_online', state_topic: 'x/online', device_class: 'connectivity' },
  },
};
const problemsOf = (payload: object, topic = TOPIC) => haDiscoveryProblems(topic, JSON.stringify(payload));
const withComponent = (id: string, component: object) => ({ ...valid, cmps: { ...valid.cmps, [id]: component } });

describe('the Home Assistant device discovery schema (test-kit)', () => {
  it('accepts a payload of every platform, abbreviated or in full', () => {
    expect(problemsOf(valid)).toEqual([]);
  });

  it.each([
    ['no device', { ...valid, dev: undefined }, 'device'],
    ['no origin', { ...valid, o: undefined }, 'origin'],
    ['a component without unique_id', withComponent('a', { p: 'sensor', state_topic: 'x/a' }), 'components.a.unique_id'],
    ['a component without platform', withComponent('a', { unique_id: 'x_a', state_topic: 'x/a' }), 'components.a.platform'],
    ['an unknown option (a typo)', withComponent('a', { p: 'sensor', unique_id: 'x_a', state_topic: 'x/a', unit_of_measurment: 'W' }), 'components.a'],
    ['an event without event_types', withComponent('a', { p: 'event', unique_id: 'x_a', state_topic: 'x/a' }), 'components.a.event_types'],
    ['a notify without command_topic', withComponent('a', { p: 'notify', unique_id: 'x_a' }), 'components.a.command_topic'],
    [
      'an energy sensor as measurement',
      withComponent('a', { p: 'sensor', unique_id: 'x_a', state_topic: 'x/a', device_class: 'energy', unit_of_measurement: 'kWh', state_class: 'measurement' }),
      'components.a.state_class',
    ],
    [
      'a power sensor in kWh',
      withComponent('a', { p: 'sensor', unique_id: 'x_a', state_topic: 'x/a', device_class: 'power', unit_of_measurement: 'kWh' }),
      'components.a.unit_of_measurement',
    ],
    ['a cover of an unknown class', withComponent('a', { p: 'cover', unique_id: 'x_a', device_class: 'garage_door' }), 'components.a.device_class'],
    ['a wildcard in a topic', withComponent('a', { p: 'switch', unique_id: 'x_a', command_topic: 'x/+/set' }), 'components.a.command_topic'],
    ['a key given twice', { ...valid, dev: { ...valid.dev, identifiers: ['y'] } }, 'device'],
    ['a climate mode HA does not have', withComponent('a', { p: 'climate', unique_id: 'x_a', modes: ['heating'] }), 'components.a.modes'],
    ['two components with one unique_id', withComponent('a', { p: 'switch', unique_id: 'x_plug', command_topic: 'x/a' }), 'unique_id'],
  ])('refuses %s', (_what, payload, path) => {
    expect(problemsOf(payload).join('\n')).toContain(path);
  });

  it('refuses a topic that is not <prefix>/device/<id>/config', () => {
    expect(problemsOf(valid, 'homeassistant/device/homeops x/config')).toHaveLength(1);
    expect(problemsOf(valid, 'homeassistant/sensor/homeops_x/config')).toHaveLength(1);
  });
});
