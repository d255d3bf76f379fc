# The review's findings (issue 20), each against a real loopback server: header injection, local
# validation as Sendline errors, answers that are not JSON, connection errors, plain dates, events.
require 'base64'
require 'date'
require 'json'
require 'sendline'
require_relative 'support/loopback_server'

RSpec.describe 'Sendline::Client after the review' do
  secret_key = 'sl_live_supersecretkey0123456789'
  contact = { id: 'ct_1', email: 'ada@example.com', tags: [], status: 'subscribed', attributes: {},
              created_at: '2026-11-23T06:00:00.000Z', updated_at: '2026-11-23T06:00:00.000Z' }
  empty_page = '{"data":[],"next_cursor":null,"has_more":false}'
  json = { 'Content-Type' => 'application/json' }

  servers = []
  after { servers.each(&:close).clear }

  define_method(:serve) do |&handler|
    LoopbackServer.new(&handler).tap { |server| servers << server }
  end

  define_method(:echo) { serve { |r, _| [200, json, r.method == 'GET' && r.path.end_with?('/contacts') ? empty_page : JSON.generate(contact)] } }

  def client_for(server, key: 'sl_live_supersecretkey0123456789', **options)
    Sendline::Client.new(api_key: key, base_url: server.is_a?(String) ? server : server.url, **options)
  end

  describe 'credentials and header values' do
    it 'refuses a key with CR/LF or other invisible characters, without showing any of it' do
      ["sl_live_abc\r\nX-Injected: yes", "sl_live_abc\nX-Injected: yes", "sl_live_a bc", "sl_live_a\tbc", "sl_live_abcé", "sl_live_\u0000abc"].each do |key|
        expect { client_for(echo, key: key) }.to raise_error(Sendline::ConfigurationError) { |e|
          expect(e.message).not_to include('abc')
          expect(e.message).not_to include('sl_live')
        }
      end
    end

    it 'strips whitespace around the key (a trailing newline from a file)' do
      server = echo
      client_for(server, key: " #{secret_key}\n").contacts.get('ct_1')
      expect(server.requests.first.header('authorization')).to eq("Bearer #{secret_key}")
    end

    it 'refuses an Idempotency-Key outside the server rule locally, never sent nor retried' do
      server = echo
      client = client_for(server)
      ["x\r\nX-Injected2: yes", "x\n", ' lead', 'trail ', '', 'a' * 256, 'clé'].each do |key|
        expect { client.contacts.create(email: 'ada@example.com', idempotency_key: key) }.to raise_error(Sendline::ValidationError) { |e|
          expect(e.status).to be_nil
          expect(e.code).to eq('invalid_idempotency_key')
          expect(e.errors.map(&:pointer)).to eq(['header.Idempotency-Key'])
          expect(e.errors.first.detail).not_to be_empty
        }
      end
      expect { client.contacts.import_csv("email\na@example.com\n", idempotency_key: "x\r\nX: y") }.to raise_error(Sendline::ValidationError)
      expect(server.requests).to be_empty
      client.contacts.create(email: 'ada@example.com', idempotency_key: 'a key with inner spaces ~!')
      expect(server.requests.first.header('idempotency-key')).to eq('a key with inner spaces ~!')
      expect(server.requests.first.headers.keys).not_to include('x-injected2')
    end
  end

  describe 'local validation' do
    it 'raises ValidationError for an empty, blank or nil path id before any request' do
      server = echo
      client = client_for(server)
      [-> { client.contacts.get('') }, -> { client.contacts.delete('  ') }, -> { client.contacts.get(nil) },
       -> { client.contacts.update('', first_name: 'A') }].each do |call|
        expect { call.call }.to raise_error(Sendline::ValidationError) { |e|
          expect([e.status, e.code]).to eq([nil, 'validation_failed'])
          expect(e.errors.map(&:pointer)).to eq(['path.id'])
        }
      end
      expect(server.requests).to be_empty
      expect { client.contacts.get }.to raise_error(ArgumentError)
    end

    it "lets the server answer for arguments it checks (limit), and turns the models' checks into ValidationError" do
      server = serve { [400, { 'Content-Type' => 'application/problem+json' }, JSON.generate(status: 400, code: 'validation_failed', detail: 'Bad.', errors: [{ pointer: 'query.limit', detail: 'too big' }])] }
      client = client_for(server)
      expect { client.contacts.list(limit: 1000).first_page }.to raise_error(Sendline::ValidationError) { |e|
        expect(e.status).to eq(400)
        expect(e.errors.map(&:pointer)).to eq(['query.limit'])
      }
      expect(server.requests.first.query).to eq('limit' => '1000')
      expect { client.contacts.create(email: 'a' * 300) }.to raise_error(Sendline::ValidationError) { |e|
        expect([e.status, e.code]).to eq([nil, 'validation_failed'])
        expect(e.errors.map(&:pointer)).to eq(['/email'])
      }
      expect(server.requests.size).to eq(1)
    end
  end

  describe 'answers' do
    it 'raises SendlineError invalid_response for a 2xx answer that is not JSON' do
      [[{ 'Content-Type' => 'text/html' }, '<html>hi</html>'], [json, 'not json{']].each do |headers, body|
        server = serve { [200, headers, body] }
        expect { client_for(server).contacts.get('ct_1') }.to raise_error(Sendline::SendlineError) { |e|
          expect(e.class).to eq(Sendline::SendlineError)
          expect([e.status, e.code]).to eq([200, 'invalid_response'])
          expect(e.message).to start_with('200')
        }
      end
    end

    it 'still answers a text answer where the operation gives one (an import errors CSV)' do
      server = serve { [200, { 'Content-Type' => 'text/csv' }, "row,error\n2,bad email\n"] }
      expect(client_for(server).contact_imports.errors('imp_1')).to eq("row,error\n2,bad email\n")
    end

    it 'names the URL (without its query) it could not reach, and chains the cause' do
      url = LoopbackServer.refused_url
      expect { client_for(url, max_retries: 0).contacts.list(tag: 'hushhush').first_page }.to raise_error(Sendline::APIConnectionError) { |e|
        expect(e.message).to start_with("Could not reach #{url}/api/v1/contacts: ")
        expect(e.message).not_to include('hushhush')
        expect(e.cause).not_to be_nil
      }
    end

    it 'raises APITimeoutError naming the import and its status when wait runs out of time' do
      server = serve { [200, json, JSON.generate(id: 'imp_1', status: 'queued', mode: 'upsert', total_rows: 0, processed_rows: 0, created: 0, updated: 0, skipped: 0, failed: 0, errors: [], created_at: '2026-11-23T06:00:00Z')] }
      expect { client_for(server).contact_imports.wait('imp_1', timeout: 0.1, interval: 0.05) }.to raise_error(Sendline::APITimeoutError, /imp_1.*\bqueued\b/)
      params = Sendline::Resources::ContactImports.instance_method(:wait).source_location
      expect(File.readlines(params[0])[params[1] - 1]).to include('timeout: 600, interval: 1')
    end
  end

  describe 'dates' do
    it 'sends a plain Date as that day at 00:00:00Z, in queries and bodies' do
      server = serve { |r, _| [200, json, r.method == 'GET' ? empty_page : '{}'] }
      client = client_for(server)
      client.contacts.list(created_after: Date.new(2026, 1, 1)).first_page
      expect(server.requests.first.query).to eq('created_after' => '2026-01-01T00:00:00Z')
      client.campaigns.schedule('cmp_1', scheduled_at: Date.new(2026, 11, 23)) rescue nil # rubocop:disable Style/RescueModifier
      expect(JSON.parse(server.requests.last.body)).to eq('scheduled_at' => '2026-11-23T00:00:00Z')
    end
  end
end

RSpec.describe Sendline::Webhook do
  let(:secret) { "whsec_#{Base64.strict_encode64('k' * 24)}" }
  let(:hook) { described_class.new(secret) }
  let(:now) { Time.now.to_i }

  def signed(body, at: now)
    { 'webhook-id' => 'evt_1', 'webhook-timestamp' => at.to_s, 'webhook-signature' => hook.sign('evt_1', at, body) }
  end

  def event(type, data)
    JSON.generate(id: 'evt_1', type: type, created_at: '2026-11-23T06:00:00.000Z', account_id: 'acc_1', data: data)
  end

  it 'answers UnknownEvent for an unknown type and for a known type whose data does not fit' do
    [event('contact.teleported', { where: 'Mars' }), event('contact.created', {}), event('contact.created', { contact: { id: 'ct_1' } })].each do |body|
      got = hook.verify(body, signed(body))
      expect(got).to be_a(Sendline::UnknownEvent)
      expect([got.id, got.account_id]).to eq(%w[evt_1 acc_1])
    end
    expect(Sendline.const_defined?(:GenericEvent)).to be(false)
  end

  it 'words its errors as the other SDKs do' do
    body = event('contact.teleported', {})
    {
      'missing webhook-id, webhook-timestamp or webhook-signature header' => [body, signed(body).except('webhook-id')],
      'webhook timestamp is not a number' => [body, signed(body).merge('webhook-timestamp' => 'soon')],
      'webhook timestamp is more than 300 s from now' => [body, signed(body, at: now - 400)],
      'no webhook signature matches' => [body, signed(body).merge('webhook-signature' => "v1,#{Base64.strict_encode64('x' * 32)}")],
      'webhook body is not a JSON event' => ['[1]', signed('[1]')]
    }.each do |message, (payload, headers)|
      expect { hook.verify(payload, headers) }.to raise_error(Sendline::WebhookVerificationError) { |e| expect(e.message).to eq(message) }
    end
    expect { hook.verify(body, signed(body, at: now + 400)) }.to raise_error(Sendline::WebhookVerificationError, 'webhook timestamp is more than 300 s from now')
    expect { hook.verify('nope', signed('nope')) }.to raise_error(Sendline::WebhookVerificationError, 'webhook body is not a JSON event')
    ['whsec_***', 'not base64!!', ''].each do |bad|
      expect { described_class.new(bad) }.to raise_error(Sendline::WebhookVerificationError, 'webhook secret is not a whsec_ base64 secret')
    end
  end
end
