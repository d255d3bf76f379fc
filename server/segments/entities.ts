import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { SegmentRule } from './rules.ts';

/** A saved segment: its rules, compiled to SQL each time it is read (migration `SegmentsAndFields`). */
export const Segment = defineEntity({
  name: 'Segment',
  tableName: 'segments',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    name: p.string(),
    description: p.text().nullable(),
    rules: p.json<SegmentRule>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export type SegmentRow = InferEntity<typeof Segment>;
