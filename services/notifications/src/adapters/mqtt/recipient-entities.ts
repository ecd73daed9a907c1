import { slugOf, type DiscoveryDevice } from '@homeops/common/mqtt';

/** The topics of one recipient under the base topic; docs/home-assistant.md lists them. */
export interface RecipientTopics {
  /** A message here creates a notification (the notify entity's command topic). */
  notify: string;
  /** Why a message on `notify` created nothing (JSON, not retained). */
  error: string;
  /** The unread count (retained). */
  unread: string;
  /** Any message here marks every notification of the recipient read (the button's command topic). */
  markAllRead: string;
  /** `acknowledged` and `alarm-ended` of the recipient's emergencies (the event entity, not retained). */
  alarm: string;
}

/** One recipient as the bridge shows it: its name, the slug its topics and ids use, its topics. */
export interface RecipientEntity {
  recipient: string;
  slug: string;
  topics: RecipientTopics;
}

/** The most recipients the bridge shows; more is a startup error (the set must stay small for Home Assistant). */
export const MAX_MQTT_RECIPIENTS = 50;

/** Each recipient's topics; refuses more than MAX_MQTT_RECIPIENTS and two names with the same slug. */
export function recipientEntities(baseTopic: string, recipients: string[]): RecipientEntity[] {
  const names = [...new Set(recipients)];
  if (names.length > MAX_MQTT_RECIPIENTS) {
    throw new Error(
      `MQTT shows at most ${MAX_MQTT_RECIPIENTS} recipients; ${names.length} are configured (set MQTT_RECIPIENTS to the ones Home Assistant needs)`,
    );
  }
  const bySlug = new Map<string, string>();
  return names.map((recipient) => {
    const slug = slugOf(recipient);
    const other = bySlug.get(slug);
    if (other !== undefined) throw new Error(`recipients "${other}" and "${recipient}" would share the MQTT topics of "${slug}"; rename one`);
    bySlug.set(slug, recipient);
    const at = `${baseTopic}/recipients/${slug}`;
    return {
      recipient,
      slug,
      topics: { notify: `${at}/notify`, error: `${at}/notify/error`, unread: `${at}/unread`, markAllRead: `${at}/mark-all-read`, alarm: `${at}/alarm` },
    };
  });
}

/** One Home Assistant device per recipient: send, the unread count, mark all read, and the alarm events. */
export function recipientDevice(entity: RecipientEntity, deviceId: string, swVersion: string): DiscoveryDevice {
  const { topics } = entity;
  return {
    id: deviceId,
    name: `Notifications ${entity.recipient}`,
    manufacturer: 'homeops',
    model: 'notifications recipient',
    swVersion,
    components: {
      notify: { platform: 'notify', uniqueId: `${deviceId}_notify`, name: null, options: { command_topic: topics.notify, icon: 'mdi:message-text' } },
      unread: {
        platform: 'sensor',
        uniqueId: `${deviceId}_unread`,
        name: 'Unread',
        options: { state_topic: topics.unread, state_class: 'measurement', icon: 'mdi:bell-badge' },
      },
      mark_all_read: {
        platform: 'button',
        uniqueId: `${deviceId}_mark_all_read`,
        name: 'Mark all read',
        options: { command_topic: topics.markAllRead, payload_press: 'PRESS', icon: 'mdi:email-open-multiple' },
      },
      alarm: {
        platform: 'event',
        uniqueId: `${deviceId}_alarm`,
        name: 'Emergency alarm',
        options: { state_topic: topics.alarm, event_types: ['acknowledged', 'alarm-ended'], icon: 'mdi:alarm-light' },
      },
    },
  };
}
