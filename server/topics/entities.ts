import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** An unsubscribe topic ("Newsletter", "Product updates") a campaign can belong to. */
export const Topic = defineEntity({
  name: 'Topic',
  tableName: 'topics',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    name: p.string(),
    description: p.string().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    updatedAt: p.datetime().defaultRaw('now()'),
  },
});

/** A contact who left a topic: campaigns of that topic leave them out. */
export const ContactTopicOptout = defineEntity({
  name: 'ContactTopicOptout',
  tableName: 'contact_topic_optouts',
  properties: {
    topicId: p.string().primary(),
    contactId: p.string().primary(),
    accountId: p.string(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});

export type TopicRow = InferEntity<typeof Topic>;
