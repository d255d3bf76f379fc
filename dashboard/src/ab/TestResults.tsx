import type { components } from '@sendline/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../session.ts';
import { ErrorMessage, formatDate, formatNumber, formatRate } from '../ui.tsx';

type Campaign = components['schemas']['Campaign'];

const PHASE: Record<string, string> = {
  testing: 'Sending to the test group.',
  waiting: 'Waiting for the results.',
  decided: 'The winner is chosen.',
};

/** An A/B test's figures by variant, the winner once chosen, and the choice by hand while it waits. */
export function TestResults({ campaign }: { campaign: Campaign }) {
  const client = useQueryClient();
  const figures = useQuery({
    queryKey: ['analytics', 'campaign', campaign.id],
    queryFn: () => api().analytics.campaign(campaign.id),
    // The figures that pick the winner come in while the test runs.
    refetchInterval: campaign.status === 'sending' ? 2_000 : false,
  });
  const choose = useMutation({
    mutationFn: (variant: string) => api().campaigns.winner(campaign.id, { variant }),
    onSuccess: (updated) => {
      client.setQueryData(['campaign', campaign.id], updated);
      void client.invalidateQueries({ queryKey: ['analytics', 'campaign', campaign.id] });
    },
  });
  const waiting = campaign.test_phase === 'waiting';
  const metric = campaign.ab_test?.metric ?? 'opens';
  return (
    <section className="card stack" aria-labelledby="ab-title">
      <h2 id="ab-title">A/B test</h2>
      <p data-testid="ab-phase">
        {campaign.test_phase ? PHASE[campaign.test_phase] : 'Not started.'} Winner by {metric}
        {campaign.test_decides_at && waiting && campaign.ab_test?.auto_send_winner ? `, picked ${formatDate(campaign.test_decides_at)}` : ''}.
        {campaign.winner && (
          <strong data-testid="ab-winner">
            {' '}
            Winner: {campaign.winner.variant} ({campaign.winner.picked_by === 'manual' ? 'chosen by hand' : `most ${campaign.winner.picked_by}`})
          </strong>
        )}
      </p>
      <ErrorMessage error={figures.error ?? choose.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Variant</th>
            <th scope="col">Recipients</th>
            <th scope="col">Delivered</th>
            <th scope="col">Open rate</th>
            <th scope="col">Click rate</th>
            <th scope="col">Conversion rate</th>
            {waiting && <th scope="col">Winner</th>}
          </tr>
        </thead>
        <tbody>
          {(figures.data?.variants ?? []).map((v) => (
            <tr key={v.name} data-testid={`variant-${v.name}`}>
              <th scope="row">{v.name}</th>
              <td>{formatNumber(v.recipients)}</td>
              <td>{formatNumber(v.delivered)}</td>
              <td>{formatRate(v.open_rate)}</td>
              <td>{formatRate(v.click_rate)}</td>
              <td>{formatRate(v.conversion_rate)}</td>
              {waiting && (
                <td>
                  <button type="button" onClick={() => choose.mutate(v.name)} disabled={choose.isPending}>
                    Send {v.name} to the rest
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
