/**
 * Every one-off job by name, with the data it carries: `define`, `enqueue` and `ensure` are
 * checked against it, so a job cannot be queued with data its handler does not read.
 */
export type JobPayloads = {
  /** One of a sending campaign's send jobs; `slot` keeps them apart (`SEND_WORKERS_PER_CAMPAIGN`). */
  'campaigns.send': { campaignId: string; slot: number };
  'contacts.import': { importId: string };
  'contacts.export': { exportId: string };
};

/** A job's data: flat, so that `ensure` can key jobs on its fields. */
export type JobData = Record<string, string | number>;

export const SEND_JOB = 'campaigns.send' satisfies keyof JobPayloads;
export const IMPORT_JOB = 'contacts.import' satisfies keyof JobPayloads;
export const EXPORT_JOB = 'contacts.export' satisfies keyof JobPayloads;
