import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { components } from '../../generated/openapi.d.ts';

export type ExportStatus = components['schemas']['ContactExportStatus'];
export const EXPORT_STATUSES = ['queued', 'running', 'completed', 'failed'] as const satisfies readonly ExportStatus[];

/** One CSV export of contacts: its filters, progress and how it ended. */
export const ContactExport = defineEntity({
  name: 'ContactExport',
  tableName: 'contact_exports',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    status: p.enum([...EXPORT_STATUSES]),
    filters: p.json<Record<string, string | string[]>>(),
    rows: p.integer().defaultRaw('0'),
    bytes: p.bigint('number').defaultRaw('0'),
    error: p.string().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    startedAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    expiresAt: p.datetime(),
  },
});

/** The CSV in chunks of about 48 KB of whole lines, in order. */
export const ContactExportChunk = defineEntity({
  name: 'ContactExportChunk',
  tableName: 'contact_export_chunks',
  properties: {
    accountId: p.string(),
    exportId: p.string().primary(),
    seq: p.integer().primary(),
    data: p.blob(),
  },
});

export type ContactExportRow = InferEntity<typeof ContactExport>;
