/**
 * What an account looks like through the API: every list, every page. A release's fixture keeps
 * this as the release answered it, and the upgrade test asks the current code for the same.
 */
import type { Client } from '../client.ts';

export type Snapshot = Record<string, unknown>;

/** Every item of a paginated list. */
export async function listAll(api: Client, path: string): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const separator = path.includes('?') ? '&' : '?';
    const res = await api('GET', `${path}${separator}limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    items.push(...res.body.data);
    if (!res.body.has_more) return items;
    cursor = res.body.next_cursor;
  }
  throw new Error(`GET ${path}: more than 100 pages`);
}

async function get(api: Client, path: string): Promise<unknown> {
  const res = await api('GET', path);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * Counters that depend on when they are read (the last 24 hours of deliveries) are left out;
 * everything else an account holds is in.
 */
function timeless(webhook: any): unknown {
  const { stats: _stats, ...rest } = webhook;
  return rest;
}

/** `session` calls as a logged-in owner (users and API keys are managed only there). */
export async function snapshotAccount(session: Client): Promise<Snapshot> {
  const campaigns = await listAll(session, '/api/campaigns');
  const webhooks = await listAll(session, '/api/webhooks');
  const contacts = await listAll(session, '/api/contacts');
  const imports = await listAll(session, '/api/contacts/import');
  const snapshot: Snapshot = {
    users: await listAll(session, '/api/users'),
    api_keys: await listAll(session, '/api/api-keys'),
    contacts,
    imports,
    campaigns,
    events: await listAll(session, '/api/events'),
    opens: await listAll(session, '/api/tracking/opens'),
    clicks: await listAll(session, '/api/tracking/clicks'),
    bounces: await listAll(session, '/api/tracking/bounces'),
    conversions: await listAll(session, '/api/conversions'),
    payments: await listAll(session, '/api/payments'),
    webhooks: webhooks.map(timeless),
  };
  for (const campaign of campaigns) {
    snapshot[`campaign ${campaign.id} messages`] = await listAll(session, `/api/campaigns/${campaign.id}/messages`);
    snapshot[`campaign ${campaign.id} analytics`] = await get(session, `/api/analytics/campaigns/${campaign.id}`);
  }
  for (const { id } of imports) {
    snapshot[`import ${id}`] = await get(session, `/api/contacts/import/${id}`);
    snapshot[`import ${id} errors.csv`] = await get(session, `/api/contacts/import/${id}/errors.csv`);
  }
  for (const webhook of webhooks) {
    snapshot[`webhook ${webhook.id} deliveries`] = await listAll(session, `/api/webhooks/${webhook.id}/deliveries`);
  }
  for (const contact of contacts) {
    snapshot[`contact ${contact.id} activity`] = await listAll(session, `/api/contacts/${contact.id}/activity`);
  }
  return snapshot;
}
