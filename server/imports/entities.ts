import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { components } from '../../generated/openapi.d.ts';

export type ImportStatus = components['schemas']['ImportStatus'];
export type ImportMode = components['schemas']['ImportMode'];

export const IMPORT_STATUSES = ['queued', 'running', 'completed', 'failed'] as const satisfies readonly ImportStatus[];
export const IMPORT_MODES = ['upsert', 'create_only', 'update_only'] as const satisfies readonly ImportMode[];

/** One import: its options, counts, each writer's checkpoint and how it ended. */
export const ContactImport = defineEntity({
  name: 'ContactImport',
  tableName: 'contact_imports',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    status: p.enum([...IMPORT_STATUSES]),
    mode: p.enum([...IMPORT_MODES]),
    tags: p.array().columnType('text[]').defaultRaw(`'{}'`),
    mapping: p.json<Record<string, string>>().defaultRaw(`'{}'::jsonb`),
    // pg reads a bigint as a string; an upload is at most IMPORT_MAX_BYTES.
    sizeBytes: p.bigint('string').defaultRaw('0'),
    totalRows: p.integer().defaultRaw('0'),
    processedRows: p.integer().defaultRaw('0'),
    created: p.integer().defaultRaw('0'),
    updated: p.integer().defaultRaw('0'),
    skipped: p.integer().defaultRaw('0'),
    failed: p.integer().defaultRaw('0'),
    failureCode: p.string().nullable(),
    failureDetail: p.string().nullable(),
    failureRow: p.integer().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    startedAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
    /** The last file row each writer has accounted for (1-based by writer in SQL). */
    checkpoints: p.array<number>(Number).columnType('integer[]').defaultRaw(`'{}'`),
    /** Lists every imported contact joins. */
    listIds: p.array().columnType('text[]').defaultRaw(`'{}'`),
  },
});

/** The uploaded file in 1 MB chunks, kept until the import ends. */
export const ContactImportChunk = defineEntity({
  name: 'ContactImportChunk',
  tableName: 'contact_import_chunks',
  properties: {
    accountId: p.string(),
    importId: p.string().primary(),
    seq: p.integer().primary(),
    data: p.blob(),
  },
});

/** A row the import could not take, with why. */
export const ContactImportError = defineEntity({
  name: 'ContactImportError',
  tableName: 'contact_import_errors',
  properties: {
    accountId: p.string(),
    importId: p.string().primary(),
    row: p.integer().primary(),
    email: p.string().nullable(),
    code: p.string(),
    detail: p.string(),
  },
});

export type ContactImportRow = InferEntity<typeof ContactImport>;
export type ContactImportErrorRow = InferEntity<typeof ContactImportError>;
