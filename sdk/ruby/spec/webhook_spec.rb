# Sendline::Webhook: Standard Webhooks signatures, any header spelling, raw bodies of any encoding.
require 'base64'
require 'json'
require 'sendline'

RSpec.describe Sendline::Webhook do
  let(:secret) { "whsec_#{Base64.strict_encode64('k' * 24)}" }
  let(:hook) { described_class.new(secret) }
  let(:now) { Time.now.to_i }
  let(:known) { JSON.generate(id: 'evt_1', type: 'webhook.test', created_at: '2026-11-23T06:00:00.000Z', account_id: 'acc_1', data: { webhook_id: 'wh_1', message: 'Grüße 🎉' }) }
  let(:unknown) { JSON.generate(id: 'evt_2', type: 'contact.teleported', created_at: '2026-11-23T06:00:00.000Z', account_id: 'acc_1', data: { where: 'Mars' }) }

  def headers(body, id: 'evt_1', at: now, signature: nil)
    { 'webhook-id' => id, 'webhook-timestamp' => at.to_s, 'webhook-signature' => signature || hook.sign(id, at, body) }
  end

  it 'answers the typed event of a known type, from a binary body and capitalised headers' do
    given = headers(known).transform_keys { |k| k.split('-').map(&:capitalize).join('-') }
    event = hook.verify(known.b, given)
    expect(event).to be_a(Sendline::WebhookTestEvent)
    expect(event.data.message).to eq('Grüße 🎉')
  end

  it 'answers an UnknownEvent for a type it does not know' do
    event = hook.verify(unknown, headers(unknown, id: 'evt_2'))
    expect(event).to be_a(Sendline::UnknownEvent)
    expect([event.id, event.type, event.account_id, event.data]).to eq(['evt_2', 'contact.teleported', 'acc_1', { where: 'Mars' }])
    expect(event.created_at).to eq(Time.utc(2026, 11, 23, 6))
  end

  it 'takes a Rack env, array values and a secret without its prefix' do
    plain = described_class.new(secret.delete_prefix('whsec_'))
    signed = headers(known)
    env = { 'HTTP_WEBHOOK_ID' => signed['webhook-id'], 'HTTP_WEBHOOK_TIMESTAMP' => signed['webhook-timestamp'],
            'HTTP_WEBHOOK_SIGNATURE' => signed['webhook-signature'], 'rack.input' => nil }
    expect(plain.verify(known, env).type).to eq('webhook.test')
    arrays = signed.transform_values { |v| [v] }
    arrays['webhook-signature'] = ["v1,#{Base64.strict_encode64('x' * 32)}", signed['webhook-signature']]
    expect(hook.verify(known, arrays).type).to eq('webhook.test')
  end

  {
    'an altered body' => ->(body, h) { [body.sub('wh_1', 'wh_2'), h] },
    'another secret' => ->(body, h) { [body, h.merge('webhook-signature' => described_class.new(Base64.strict_encode64('o' * 24)).sign('evt_1', h['webhook-timestamp'], body))] },
    'no signature header' => ->(body, h) { [body, h.except('webhook-signature')] },
    'a signature that is not base64' => ->(body, h) { [body, h.merge('webhook-signature' => 'v1,***')] },
    'an unknown signature version' => ->(body, h) { [body, h.merge('webhook-signature' => h['webhook-signature'].sub('v1,', 'v2,'))] },
    'a timestamp that is not a number' => ->(body, h) { [body, h.merge('webhook-timestamp' => 'soon')] },
    'a body that is not JSON' => ->(_, h) { ['not json', h] },
    'a body that is not UTF-8' => ->(_, h) { ["\xff\xfe".b, h] }
  }.each do |name, alter|
    it "raises WebhookVerificationError for #{name}" do
      body, given = alter.call(known, headers(known))
      given = given.merge('webhook-signature' => hook.sign('evt_1', now, body)) if name.start_with?('a body that is not')
      expect { hook.verify(body, given) }.to raise_error(Sendline::WebhookVerificationError)
    end
  end

  it 'refuses deliveries more than five minutes old or ahead' do
    [now - 301, now + 301].each do |at|
      expect { hook.verify(known, headers(known, at: at)) }.to raise_error(Sendline::WebhookVerificationError, /timestamp/)
    end
    expect(hook.verify(known, headers(known, at: now - 290)).type).to eq('webhook.test')
  end

  it 'raises WebhookVerificationError for a secret that is not base64, and never shows the secret' do
    expect { described_class.new('whsec_***') }.to raise_error(Sendline::WebhookVerificationError)
    expect(hook.inspect).not_to include(secret.delete_prefix('whsec_'))
    expect(Sendline::WebhookVerificationError.ancestors).to include(Sendline::SendlineError)
  end
end
