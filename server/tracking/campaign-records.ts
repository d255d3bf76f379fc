import type { Db } from '../db/kysely.ts';

/** The firsts a flush of opens and clicks found, per campaign message. */
export interface EngagementFirsts {
  id: string;
  accountId: string;
  openedAt: Date | null;
  humanOpenedAt: Date | null;
  clickedAt: Date | null;
  clickedLinks: number[];
}

/** The campaign's own counters that tracking keeps (`stats` in the API). */
export type CampaignCounts = { [K in 'opened' | 'clicked' | 'bounced' | 'complained' | 'unsubscribed']?: number };

/**
 * What tracking writes on campaigns' messages and counters, in its own transaction (`tx`):
 * declared here and handed in by the composition root, so tracking reads no campaign internals.
 */
export interface CampaignRecords {
  markEngaged(tx: Db, list: EngagementFirsts[]): Promise<void>;
  markBounced(tx: Db, accountId: string, messageId: string, reason: string | null, at: Date): Promise<void>;
  /** True for the message's first complaint. */
  markComplained(tx: Db, accountId: string, messageId: string, at: Date): Promise<boolean>;
  markUnsubscribed(tx: Db, accountId: string, messageId: string): Promise<void>;
  addEngagementCounts(tx: Db, accountId: string, campaignId: string, counts: CampaignCounts): Promise<void>;
}
