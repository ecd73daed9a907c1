import type { HookTemplate } from './hook-template.js';

// The webhook bodies of the usual monitoring tools, as their docs describe them, mapped with the same template
// language a user's file uses (so these are examples too). Fixtures of each are in test/fixtures/hooks/.

// Severity names as Alertmanager and Grafana rules usually label them; `critical` rings (priority 2).
const SEVERITY = { from: 'labels.severity', map: { critical: 2, page: 2, error: 1, warning: 1, info: -1 }, default: 0 };

/** Summary, else description, else "<alertname> is <status>". */
const ALERT_MESSAGE =
  '{{annotations.summary}}{{^annotations.summary}}{{annotations.description}}{{^annotations.description}}' +
  '{{labels.alertname}} is {{status}}{{/annotations.description}}{{/annotations.summary}}';

export const BUILT_IN_TEMPLATES: Record<string, HookTemplate> = {
  /** Prometheus Alertmanager's webhook_config (version 4): one notification per alert, its fingerprint the identity. */
  alertmanager: {
    each: 'alerts',
    title: '{{labels.alertname}}{{#labels.instance}} on {{labels.instance}}{{/labels.instance}}',
    message: ALERT_MESSAGE,
    priority: SEVERITY,
    url: '{{generatorURL}}',
    urlTitle: 'Open in Prometheus',
    identity: '{{fingerprint}}',
    resolved: { from: 'status', values: ['resolved'] },
  },
  /** Grafana alerting's webhook contact point: per alert, its fingerprint (of the rule's labels) the identity. */
  grafana: {
    each: 'alerts',
    title: '{{labels.alertname}}{{#labels.grafana_folder}} ({{labels.grafana_folder}}){{/labels.grafana_folder}}',
    message: `${ALERT_MESSAGE}{{#valueString}} ({{valueString}}){{/valueString}}`,
    priority: SEVERITY,
    url: '{{dashboardURL}}{{^dashboardURL}}{{generatorURL}}{{/dashboardURL}}',
    urlTitle: 'Open in Grafana',
    identity: '{{fingerprint}}',
    resolved: { from: 'status', values: ['resolved'] },
  },
  /** Uptime Kuma's webhook notification (JSON): a monitor going down fires, coming up resolves. */
  'uptime-kuma': {
    title: '{{monitor.name}}{{^monitor}}Uptime Kuma{{/monitor}}',
    message: '{{msg}}',
    priority: { from: 'heartbeat.status', map: { '0': 1, '1': 0 }, default: 0 },
    url: '{{monitor.url}}',
    identity: '{{monitor.id}}',
    resolved: { from: 'heartbeat.status', values: [1] },
  },
  /** Any tool that can send `{ "title", "message", "priority", "url", "sound", "id", "status" }`. */
  generic: {
    recipient: '{{recipient}}',
    title: '{{title}}{{^title}}Alert{{/title}}',
    message: '{{message}}',
    priority: { from: 'priority', default: 0 },
    url: '{{url}}',
    sound: '{{sound}}',
    identity: '{{id}}',
    resolved: { from: 'status', values: ['resolved', 'ok', 'up', 'RESOLVED', 'OK', 'UP'] },
    escalate: { from: 'escalate' },
  },
};
