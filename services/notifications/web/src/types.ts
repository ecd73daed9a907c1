/** Priority 2: how the alarm repeats and how it ended. */
export interface Emergency {
  retry: number;
  expire: number;
  callback?: string;
  tags?: string;
  acknowledgedAt?: string;
  /** The recipient alias, or "a member of <alias>" for a group key. */
  acknowledgedBy?: string;
  acknowledgedByDevice?: string;
  expiredAt?: string;
  /** Cancelled at Pushover because it was read here first. */
  cancelledAt?: string;
}

/** A stored notification, as every route returns it. */
export interface Notification {
  id: string;
  recipient: string;
  title: string;
  message: string;
  priority: number;
  sound?: string;
  url?: string;
  urlTitle?: string;
  html?: boolean;
  monospace?: boolean;
  ttl?: number;
  device?: string;
  attachment?: { filename: string; contentType: string; size: number };
  emergency?: Emergency;
  read: boolean;
  readAt: string | null;
  createdAt: string;
  delivery: {
    status: 'sent' | 'pending' | 'failed' | 'skipped' | 'expired' | 'unknown';
    attempts: number;
    /** The recipient alias whose Pushover key it went to (`default`: PROVIDER_USER_KEY). */
    to?: string;
    resentAt?: string;
    receipt?: string;
    request?: string;
    error?: string;
    lastAttemptAt?: string;
    nextAttemptAt?: string;
  };
}

/** GET /recipients, one entry. */
export interface RecipientSummary {
  recipient: string;
  total: number;
  unread: number;
}

/** GET /sounds, one entry. */
export interface Sound {
  name: string;
  description: string;
}
