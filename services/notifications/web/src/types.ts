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
  attachment?: { filename: string; contentType: string; size: number };
  read: boolean;
  readAt: string | null;
  createdAt: string;
  delivery: {
    status: 'sent' | 'pending' | 'failed' | 'skipped' | 'expired';
    attempts: number;
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
