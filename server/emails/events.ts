/**
 * The fields every `email.*` event of a transactional message starts with: its tags and metadata
 * come back in each; an automation's copy names its automation, step and enrolment.
 */
export function transactionalEventData(message: {
  id: string;
  contact_id: string | null;
  email: string;
  tags: string[];
  metadata: Record<string, string>;
  automation_id?: string | null;
  automation_step_id?: string | null;
  enrollment_id?: string | null;
}) {
  const base = {
    message_id: message.id,
    campaign_id: null,
    contact_id: message.contact_id,
    email: message.email,
    tags: message.tags,
    metadata: message.metadata,
  };
  if (!message.automation_id) return { ...base, stream: 'transactional' as const };
  return {
    ...base,
    stream: 'automation' as const,
    automation_id: message.automation_id,
    step_id: message.automation_step_id ?? '',
    enrollment_id: message.enrollment_id ?? '',
  };
}
