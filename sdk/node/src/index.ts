export { createSendline, login, SendlineError, type Args, type OperationId, type Problem, type Result, type Sendline, type SendlineOptions } from './client.ts';
export { verifyWebhook, WebhookVerificationError, type Event } from './webhooks.ts';
export type { components, operations, paths } from './schema.d.ts';
