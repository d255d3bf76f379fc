import type { components } from '@sendline/sdk';

type Schemas = components['schemas'];

export const TRIGGER_LABELS: Record<Schemas['AutomationTriggerType'], string> = {
  manual: 'Enrolled by hand',
  list_joined: 'A contact joins a list',
  tag_added: 'A tag is added',
  contact_created: 'A contact is created',
  event: 'An event is posted',
  segment_entered: 'A contact enters a segment',
  date: 'A date comes round',
};

export const STEP_LABELS: Record<Schemas['AutomationStepType'], string> = {
  send_email: 'Send an email',
  wait: 'Wait',
  wait_for_event: 'Wait for an event',
  condition: 'Condition',
  split: 'Random split',
  update_contact: 'Update the contact',
  webhook: 'Call a webhook',
  exit: 'Exit',
};
