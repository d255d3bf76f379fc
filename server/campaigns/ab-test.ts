import { Duration } from 'luxon';
import { sql } from 'kysely';
import type { components } from '../../generated/openapi.d.ts';
import type { FieldError } from '../contract/problem.ts';
import type { Db } from '../db/kysely.ts';
import type { CampaignContent } from '../rendering/campaign-message.ts';
import type { CampaignAbTest, CampaignVariant, CampaignWinner } from './entities.ts';

/**
 * A/B tests: a share of the audience, drawn at random once per campaign, split evenly across 2–5
 * variants; after a wait the variant with the highest unique rate of the test's metric per
 * message delivered (a tie to the first) goes to the rest, by itself or when chosen by hand.
 */

export type VariantFigures = components['schemas']['VariantFigures'];

/** The longest wait a test may take before its winner is picked. */
const MAX_WAIT_DAYS = 30;

/** What a campaign's `variants` and `ab_test` fields must be; each error at its pointer. */
export function abTestErrors(
  input: { variants?: CampaignVariant[] | null; ab_test?: CampaignAbTest | null; template_id?: string | null },
  /** Each variant's Liquid errors, in order, as the template thread found them. */
  templateErrors: readonly FieldError[][],
): FieldError[] {
  const { variants, ab_test: test } = input;
  if (variants == null) return test == null ? [] : [{ pointer: '/ab_test', detail: 'needs variants' }];
  if (test == null) return [{ pointer: '/ab_test', detail: 'is required with variants' }];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  variants.forEach((variant, i) => {
    if (seen.has(variant.name)) errors.push({ pointer: `/variants/${i}/name`, detail: 'is the name of another variant' });
    seen.add(variant.name);
    if (input.template_id != null)
      for (const field of ['subject', 'content', 'text_content'] as const)
        if (variant[field] != null) errors.push({ pointer: `/variants/${i}/${field}`, detail: 'cannot change a template campaign' });
    errors.push(...(templateErrors[i] ?? []).map((e) => ({ ...e, pointer: `/variants/${i}${e.pointer}` })));
  });
  const wait = Duration.fromISO(test.wait);
  if (!wait.isValid || wait.toMillis() > MAX_WAIT_DAYS * 86_400_000)
    errors.push({ pointer: '/ab_test/wait', detail: `is not an ISO 8601 duration of at most ${MAX_WAIT_DAYS} days` });
  return errors;
}

/** How long the test waits for its results, in milliseconds. */
export const waitMs = (test: CampaignAbTest) => Duration.fromISO(test.wait).toMillis();

/** The campaign's content as `variant` changes it. */
export function variantContent(content: CampaignContent, variant: CampaignVariant): CampaignContent {
  return {
    ...content,
    variant: variant.name,
    subject: variant.subject ?? content.subject,
    fromName: variant.from_name !== undefined ? variant.from_name : content.fromName,
    content: variant.content ?? content.content,
    textContent: variant.text_content !== undefined ? variant.text_content : content.textContent,
  };
}

/** Each variant's messages and unique engagement, in the campaign's order of variants. */
export async function variantFigures(db: Db, accountId: string, campaignId: string, variants: CampaignVariant[]): Promise<VariantFigures[]> {
  // Delivered: accepted and not bounced since; engagement counts within those, opens by people
  // (a mail client's prefetch is no reader's choice).
  const { rows } = await sql<{ name: string; recipients: number; sent: number; delivered: number; opened: number; clicked: number; converted: number }>`
    select m.variant as name, count(*)::int as recipients, count(m.sent_at)::int as sent,
      count(*) filter (where d.delivered)::int as delivered,
      count(*) filter (where d.delivered and m.human_opened_at is not null)::int as opened,
      count(*) filter (where d.delivered and m.clicked_at is not null)::int as clicked,
      count(*) filter (where d.delivered and v.contact_id is not null)::int as converted
    from messages m
    cross join lateral (select m.sent_at is not null and m.bounced_at is null and m.status <> 'bounced' as delivered) d
    left join (select distinct contact_id from conversions where account_id = ${accountId} and campaign_id = ${campaignId} and contact_id is not null) v on v.contact_id = m.contact_id
    where m.account_id = ${accountId} and m.campaign_id = ${campaignId} and m.variant is not null
    group by m.variant`.execute(db);
  const byName = new Map(rows.map((r) => [r.name, r]));
  return variants.map(({ name }) => {
    const r = byName.get(name) ?? { name, recipients: 0, sent: 0, delivered: 0, opened: 0, clicked: 0, converted: 0 };
    const rate = (n: number) => (r.delivered ? n / r.delivered : 0);
    return { ...r, open_rate: rate(r.opened), click_rate: rate(r.clicked), conversion_rate: rate(r.converted) };
  });
}

const RATE_OF = { opens: 'open_rate', clicks: 'click_rate', conversions: 'conversion_rate' } as const;

/** The variant with the highest rate of the test's metric; a tie goes to the first. */
export function winnerOf(figures: VariantFigures[], metric: CampaignAbTest['metric'], at: Date): CampaignWinner {
  let best = figures[0];
  for (const f of figures) if (f[RATE_OF[metric]] > best[RATE_OF[metric]]) best = f;
  return { variant: best.name, picked_by: metric, picked_at: at.toISOString() };
}
