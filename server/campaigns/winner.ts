import type { EntityManager } from '../db/orm.ts';
import { sqlOf } from '../db/kysely.ts';
import { Problem, notFound, validationFailed } from '../contract/problem.ts';
import type { CampaignRow, CampaignWinner } from './entities.ts';
import { variantFigures, winnerOf } from './ab-test.ts';
import { campaigns } from './store.ts';

/**
 * Chooses an A/B test's winner, the campaign locked, once: `chosen` by hand, or (null) by the
 * test's metric on the test group's figures. A campaign whose test is not waiting answers 409,
 * so that a second choice (another process's tick, a request) changes nothing.
 */
export function chooseWinner(em: EntityManager, campaignId: string, accountId: string, chosen: string | null): Promise<CampaignRow> {
  return em.transactional(async (tx) => {
    const campaign = await campaigns.lock(tx, campaignId, accountId);
    if (!campaign) throw notFound('campaign');
    if (campaign.testPhase !== 'waiting' || (campaign.status !== 'sending' && campaign.status !== 'paused')) {
      throw new Problem(409, 'invalid_state_transition', "The campaign's A/B test is not waiting for a winner.", {
        extra: { current_status: campaign.status },
      });
    }
    const now = new Date();
    let winner: CampaignWinner;
    if (chosen === null) winner = winnerOf(await variantFigures(sqlOf(tx), campaign.accountId, campaign.id, campaign.variants!), campaign.abTest!.metric, now);
    else if (campaign.variants!.some((v) => v.name === chosen)) winner = { variant: chosen, picked_by: 'manual', picked_at: now.toISOString() };
    else throw validationFailed([{ pointer: '/variant', detail: 'is not the name of one of the campaign’s variants' }]);
    await campaigns.decide(tx, campaign, winner);
    return campaign;
  });
}
