import { Migration20261121000000Foundation } from './Migration20261121000000Foundation.ts';
import { Migration20261121010000Contacts } from './Migration20261121010000Contacts.ts';
import { Migration20261121020000Campaigns } from './Migration20261121020000Campaigns.ts';
import { Migration20261121030000Tracking } from './Migration20261121030000Tracking.ts';
import { Migration20261121040000Webhooks } from './Migration20261121040000Webhooks.ts';
import { Migration20261121050000HotPaths } from './Migration20261121050000HotPaths.ts';
import { Migration20261121060000AscendingIndexes } from './Migration20261121060000AscendingIndexes.ts';
import { Migration20261121070000ImportWriters } from './Migration20261121070000ImportWriters.ts';
import { Migration20261121080000IdAlphabet } from './Migration20261121080000IdAlphabet.ts';
import { Migration20261121090000UncompressedUploads } from './Migration20261121090000UncompressedUploads.ts';
import { Migration20261121100000LeanOutbox } from './Migration20261121100000LeanOutbox.ts';
import { Migration20261123110000RevocationAnnouncements } from './Migration20261123110000RevocationAnnouncements.ts';
import { Migration20261123120000RollupsKeptByTheirWriters } from './Migration20261123120000RollupsKeptByTheirWriters.ts';
import { Migration20261123150000ConcurrentContactWrites } from './Migration20261123150000ConcurrentContactWrites.ts';
import { Migration20261123161500IdempotencyKeys } from './Migration20261123161500IdempotencyKeys.ts';
import { Migration20261124010000Lists } from './Migration20261124010000Lists.ts';
import { Migration20261124020000SegmentsAndFields } from './Migration20261124020000SegmentsAndFields.ts';
import { Migration20261124030000SuppressionsTopicsExports } from './Migration20261124030000SuppressionsTopicsExports.ts';
import { Migration20261124040000Templates } from './Migration20261124040000Templates.ts';
import { Migration20261124050000TransactionalEmails } from './Migration20261124050000TransactionalEmails.ts';
import { Migration20261124060000ExportJsonText } from './Migration20261124060000ExportJsonText.ts';
import { Migration20261124070000SegmentAttributeIndex } from './Migration20261124070000SegmentAttributeIndex.ts';
import { Migration20261124080000EmailContentRetention } from './Migration20261124080000EmailContentRetention.ts';
import { Migration20261124100000CampaignAudiences } from './Migration20261124100000CampaignAudiences.ts';
import { Migration20261124110000FirstEngagementIndexes } from './Migration20261124110000FirstEngagementIndexes.ts';
import { Migration20261128090000ErasureReachesEmails } from './Migration20261128090000ErasureReachesEmails.ts';
import { Migration20261128100000PendingSignups } from './Migration20261128100000PendingSignups.ts';
import { Migration20261129100000CampaignContentSource } from './Migration20261129100000CampaignContentSource.ts';
import { Migration20261130100000SendingDomains } from './Migration20261130100000SendingDomains.ts';
import { Migration20261130200000RelaySendSlots } from './Migration20261130200000RelaySendSlots.ts';
import { Migration20261201100000Automations } from './Migration20261201100000Automations.ts';
import { Migration20261202100000TimeZones } from './Migration20261202100000TimeZones.ts';
import { Migration20261202200000CampaignArchive } from './Migration20261202200000CampaignArchive.ts';
import { Migration20261202300000AbTests } from './Migration20261202300000AbTests.ts';
import { Migration20261203100000KeysByAccount } from './Migration20261203100000KeysByAccount.ts';
import { Migration20261203110000StatusCountsByWriters } from './Migration20261203110000StatusCountsByWriters.ts';
import { Migration20261203120000EventsAnnouncedByWriters } from './Migration20261203120000EventsAnnouncedByWriters.ts';
import { Migration20261203130000RevocationsAnnouncedByWriters } from './Migration20261203130000RevocationsAnnouncedByWriters.ts';

/** Every migration, in order. New ones are appended here. */
export const migrations = [
  Migration20261121000000Foundation,
  Migration20261121010000Contacts,
  Migration20261121020000Campaigns,
  Migration20261121030000Tracking,
  Migration20261121040000Webhooks,
  Migration20261121050000HotPaths,
  Migration20261121060000AscendingIndexes,
  Migration20261121070000ImportWriters,
  Migration20261121080000IdAlphabet,
  Migration20261121090000UncompressedUploads,
  Migration20261121100000LeanOutbox,
  Migration20261123110000RevocationAnnouncements,
  Migration20261123120000RollupsKeptByTheirWriters,
  Migration20261123150000ConcurrentContactWrites,
  Migration20261123161500IdempotencyKeys,
  Migration20261124010000Lists,
  Migration20261124020000SegmentsAndFields,
  Migration20261124030000SuppressionsTopicsExports,
  Migration20261124040000Templates,
  Migration20261124050000TransactionalEmails,
  Migration20261124060000ExportJsonText,
  Migration20261124070000SegmentAttributeIndex,
  Migration20261124080000EmailContentRetention,
  Migration20261124100000CampaignAudiences,
  Migration20261124110000FirstEngagementIndexes,
  Migration20261128090000ErasureReachesEmails,
  Migration20261128100000PendingSignups,
  Migration20261129100000CampaignContentSource,
  Migration20261130100000SendingDomains,
  Migration20261130200000RelaySendSlots,
  Migration20261201100000Automations,
  Migration20261202100000TimeZones,
  Migration20261202200000CampaignArchive,
  Migration20261202300000AbTests,
  Migration20261203100000KeysByAccount,
  Migration20261203110000StatusCountsByWriters,
  Migration20261203120000EventsAnnouncedByWriters,
  Migration20261203130000RevocationsAnnouncedByWriters,
];
