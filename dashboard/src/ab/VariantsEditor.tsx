import type { components } from '@sendline/sdk';

type Variant = components['schemas']['CampaignVariant'];
type AbTest = components['schemas']['CampaignAbTest'];
type Metric = components['schemas']['CampaignTestMetric'];

const MAX_VARIANTS = 5;
const NEW_TEST: AbTest = { test_percent: 20, metric: 'opens', wait: 'PT4H', auto_send_winner: true };

/** `PT4H` ↔ 4: the editor offers whole hours; another duration set through the API shows as 0 until changed. */
const hoursOf = (wait: string) => Number(/^PT(\d+)H$/.exec(wait)?.[1] ?? 0);

/**
 * A campaign's A/B test: 2–5 variants, each changing any of the subject, the sender's name and
 * the HTML, and how the test runs. Off, the campaign is sent as one.
 */
export function VariantsEditor({
  variants,
  abTest,
  templated,
  onChange,
}: {
  variants: Variant[] | null;
  abTest: AbTest | null;
  /** A template campaign varies its subject and sender only. */
  templated: boolean;
  onChange: (changes: { variants: Variant[] | null; ab_test: AbTest | null }) => void;
}) {
  const on = variants !== null;
  const test = abTest ?? NEW_TEST;
  const setVariant = (index: number, changes: Partial<Variant>) =>
    onChange({ variants: variants!.map((v, i) => (i === index ? { ...v, ...changes } : v)), ab_test: test });
  const setTest = (changes: Partial<AbTest>) => onChange({ variants, ab_test: { ...test, ...changes } });
  // An emptied field goes back to the campaign's own.
  const optional = (value: string) => value || undefined;
  return (
    <fieldset className="stack plain" aria-label="A/B test">
      <label className="inline">
        <input
          type="checkbox"
          checked={on}
          onChange={(event) => onChange(event.target.checked ? { variants: [{ name: 'A' }, { name: 'B' }], ab_test: test } : { variants: null, ab_test: null })}
        />
        Test variants (A/B)
      </label>
      {on && (
        <>
          <ol className="stack">
            {variants.map((variant, index) => (
              <li key={index} className="card stack" aria-label={`Variant ${index + 1}`}>
                <div className="grid">
                  <label>
                    Variant name
                    <input value={variant.name} onChange={(event) => setVariant(index, { name: event.target.value })} required maxLength={100} />
                  </label>
                  <label>
                    Subject <span className="muted">(empty: the campaign's)</span>
                    <input value={variant.subject ?? ''} onChange={(event) => setVariant(index, { subject: optional(event.target.value) })} />
                  </label>
                  <label>
                    From (name) <span className="muted">(empty: the campaign's)</span>
                    <input value={variant.from_name ?? ''} onChange={(event) => setVariant(index, { from_name: optional(event.target.value) })} />
                  </label>
                </div>
                {!templated && (
                  <label>
                    HTML <span className="muted">(empty: the campaign's)</span>
                    <textarea rows={4} value={variant.content ?? ''} onChange={(event) => setVariant(index, { content: optional(event.target.value) })} />
                  </label>
                )}
                {variants.length > 2 && (
                  <button type="button" className="link" onClick={() => onChange({ variants: variants.filter((_, i) => i !== index), ab_test: test })}>
                    Remove variant {index + 1}
                  </button>
                )}
              </li>
            ))}
          </ol>
          {variants.length < MAX_VARIANTS && (
            <button type="button" onClick={() => onChange({ variants: [...variants, { name: String.fromCharCode(65 + variants.length) }], ab_test: test })}>
              Add a variant
            </button>
          )}
          <div className="grid">
            <label>
              Test group (% of the audience)
              <input type="number" min={1} max={100} value={test.test_percent} onChange={(event) => setTest({ test_percent: Number(event.target.value) })} />
            </label>
            <label>
              Winner by
              <select value={test.metric} onChange={(event) => setTest({ metric: event.target.value as Metric })}>
                <option value="opens">opens</option>
                <option value="clicks">clicks</option>
                <option value="conversions">conversions</option>
              </select>
            </label>
            <label>
              Wait (hours)
              <input type="number" min={0} max={720} value={hoursOf(test.wait)} onChange={(event) => setTest({ wait: `PT${Number(event.target.value)}H` })} />
            </label>
          </div>
          <label className="inline">
            <input type="checkbox" checked={test.auto_send_winner} onChange={(event) => setTest({ auto_send_winner: event.target.checked })} />
            Send the winner to the rest by itself after the wait
          </label>
        </>
      )}
    </fieldset>
  );
}
