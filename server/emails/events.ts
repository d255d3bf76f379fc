/** The fields every `email.*` event of a transactional message starts with: its tags and metadata come back in each. */
export function transactionalEventData(message: { id: string; contact_id: string | null; email: string; tags: string[]; metadata: Record<string, string> }) {
  return {
    message_id: message.id,
    campaign_id: null,
    contact_id: message.contact_id,
    email: message.email,
    stream: 'transactional' as const,
    tags: message.tags,
    metadata: message.metadata,
  };
}
