import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { FrozenPartials } from '../rendering/liquid.ts';

/** A template and its editable draft; written only by `store.ts`. */
export const Template = defineEntity({
  name: 'Template',
  tableName: 'templates',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    name: p.string(),
    description: p.text().strictNullable(),
    subject: p.text().default(''),
    html: p.text().default(''),
    text: p.text().strictNullable(),
    /** The partials and layouts the draft calls directly, by name. */
    partialNames: p.array<string>().columnType('text[]').default([]),
    publishedVersion: p.integer().strictNullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export type TemplateRow = InferEntity<typeof Template>;

/** A published version: never updated. */
export const TemplateVersion = defineEntity({
  name: 'TemplateVersion',
  tableName: 'template_versions',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    templateId: p.string(),
    version: p.integer(),
    subject: p.text(),
    html: p.text(),
    text: p.text().strictNullable(),
    partialNames: p.array<string>().columnType('text[]').default([]),
    partials: p.json<FrozenPartials>(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type TemplateVersionRow = InferEntity<typeof TemplateVersion>;
