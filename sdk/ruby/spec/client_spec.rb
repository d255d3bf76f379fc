# Sendline::Client against real loopback HTTP servers: retries, timeouts, errors, base URLs, headers.
require 'json'
require 'pathname'
require 'pp'
require 'stringio'
require 'tempfile'
require 'sendline'
require_relative 'support/loopback_server'

KEY = 'sl_live_supersecretkey0123456789'.freeze
CONTACT = { id: 'ct_1', email: 'ada@example.com', tags: ['vip'], status: 'subscribed', attributes: {},
            created_at: '2026-11-23T06:00:00.000Z', updated_at: '2026-11-23T06:00:00.000Z' }.freeze

def problem(status, code, detail = 'Something is wrong.', **extra)
  JSON.generate({ type: "/docs/errors##{code}", title: 'Problem', status: status, code: code, detail: detail, **extra })
end

JSON_TYPE = { 'Content-Type' => 'application/json' }.freeze
PROBLEM_TYPE = { 'Content-Type' => 'application/problem+json' }.freeze

RSpec.describe Sendline::Client do
  servers = []
  after { servers.each(&:close).clear }

  define_method(:serve) do |&handler|
    LoopbackServer.new(&handler).tap { |server| servers << server }
  end

  def client_for(server, **options)
    Sendline::Client.new(api_key: KEY, base_url: server.is_a?(String) ? server : server.url, **options)
  end

  def elapsed
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    yield
  ensure
    return Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
  end

  describe 'retries' do
    it 'retries a 503 with backoff, then answers the model, with the same Idempotency-Key on every attempt' do
      server = serve { |_, i| i < 2 ? [503, PROBLEM_TYPE, problem(503, 'unavailable')] : [201, JSON_TYPE, JSON.generate(CONTACT)] }
      contact = client_for(server).contacts.create(email: 'ada@example.com', tags: ['vip'])
      expect(contact).to be_a(Sendline::Contact)
      expect(contact.email).to eq('ada@example.com')
      keys = server.requests.map { |r| r.header('idempotency-key') }
      expect(keys.size).to eq(3)
      expect(keys.uniq.size).to eq(1)
      expect(keys.first).to match(/\A\h{8}-\h{4}-4\h{3}-[89ab]\h{3}-\h{12}\z/)
      expect(JSON.parse(server.requests.last.body)).to eq('email' => 'ada@example.com', 'tags' => ['vip'])
    end

    it "sends the caller's Idempotency-Key, and none on a GET" do
      server = serve { |r, _| r.method == 'POST' ? [201, JSON_TYPE, JSON.generate(CONTACT)] : [200, JSON_TYPE, JSON.generate(CONTACT)] }
      client = client_for(server)
      client.contacts.create(email: 'ada@example.com', idempotency_key: 'create-ada-1')
      client.contacts.get('ct_1')
      expect(server.requests.map { |r| r.header('idempotency-key') }).to eq(['create-ada-1', nil])
    end

    it 'replays and refuses as a server keeping Idempotency-Keys does (the steps of 05-sdk-client.json)' do
      seen = {}
      server = serve do |r, i|
        key = r.header('idempotency-key')
        if seen.key?(key) && seen[key][0] != r.body
          [422, PROBLEM_TYPE, problem(422, 'idempotency_key_reused', 'This key was used with another body.')]
        else
          seen[key] ||= [r.body, [201, JSON_TYPE.merge('Idempotent-Replayed' => 'true'), JSON.generate(CONTACT.merge(id: "ct_#{i}"))]]
          seen[key][1]
        end
      end
      client = client_for(server)
      first = client.contacts.create(email: 'ada@example.com', idempotency_key: 'create-ada')
      expect(client.contacts.create(email: 'ada@example.com', idempotency_key: 'create-ada').id).to eq(first.id)
      expect { client.contacts.create(email: 'grace@example.com', idempotency_key: 'create-ada') }.to raise_error(Sendline::ValidationError) { |e|
        expect([e.status, e.code]).to eq([422, 'idempotency_key_reused'])
      }
    end

    it 'gives up after max_retries and raises the last error' do
      server = serve { [502, PROBLEM_TYPE, problem(502, 'bad_gateway')] }
      expect { client_for(server, max_retries: 1).contacts.get('ct_1') }.to raise_error(Sendline::ServerError) { |e| expect(e.status).to eq(502) }
      expect(server.requests.size).to eq(2)
    end

    it 'does not retry when max_retries is 0, nor a 4xx other than 408/409-in-use/429' do
      server = serve { [503, PROBLEM_TYPE, problem(503, 'unavailable')] }
      expect { client_for(server, max_retries: 0).contacts.get('ct_1') }.to raise_error(Sendline::ServerError)
      expect(server.requests.size).to eq(1)
      other = serve { [400, PROBLEM_TYPE, problem(400, 'validation_failed')] }
      expect { client_for(other).contacts.get('ct_1') }.to raise_error(Sendline::ValidationError)
      expect(other.requests.size).to eq(1)
    end

    it 'retries a 408 and a 504, and reads Retry-After as an HTTP date too' do
      answers = [[408, PROBLEM_TYPE, problem(408, 'request_timeout')],
                 [504, PROBLEM_TYPE.merge('Retry-After' => (Time.now + 1).httpdate), problem(504, 'gateway_timeout')],
                 [200, JSON_TYPE, JSON.generate(CONTACT)]]
      server = serve { |_, i| answers[i] }
      expect(client_for(server).contacts.get('ct_1').id).to eq('ct_1')
      expect(server.requests.size).to eq(3)
      expect(Sendline::SendlineError.retry_after_seconds((Time.now + 30).httpdate)).to be_between(28, 30)
      expect(Sendline::SendlineError.retry_after_seconds('soon')).to be_nil
    end

    it 'retries a 409 idempotency_key_in_use' do
      server = serve { |_, i| i.zero? ? [409, PROBLEM_TYPE, problem(409, 'idempotency_key_in_use')] : [201, JSON_TYPE, JSON.generate(CONTACT)] }
      expect(client_for(server).contacts.create(email: 'ada@example.com').id).to eq('ct_1')
      expect(server.requests.map { |r| r.header('idempotency-key') }.uniq.size).to eq(1)
    end

    it 'waits out a 429 with Retry-After: 1 and retries' do
      server = serve { |_, i| i.zero? ? [429, PROBLEM_TYPE.merge('Retry-After' => '1'), problem(429, 'rate_limited')] : [200, JSON_TYPE, JSON.generate(CONTACT)] }
      took = elapsed { expect(client_for(server).contacts.get('ct_1').id).to eq('ct_1') }
      expect(server.requests.size).to eq(2)
      expect(took).to be >= 0.95
    end

    it 'raises RateLimitError at once when Retry-After is above the 20 s cap' do
      server = serve { [429, PROBLEM_TYPE.merge('Retry-After' => '52'), problem(429, 'rate_limited', 'Too many requests.')] }
      error = nil
      took = elapsed do
        client_for(server).contacts.list.first_page
      rescue Sendline::SendlineError => e
        error = e
      end
      expect(error).to be_a(Sendline::RateLimitError)
      expect(error.retry_after).to eq(52)
      expect(error.status).to eq(429)
      expect(server.requests.size).to eq(1)
      expect(took).to be < 1
    end
  end

  describe 'timeouts and connection errors' do
    it 'raises APITimeoutError when the server does not answer within the timeout' do
      server = serve { :hang }
      error = nil
      took = elapsed do
        client_for(server, timeout: 0.5, max_retries: 0).contacts.get('ct_1')
      rescue Sendline::SendlineError => e
        error = e
      end
      expect(error).to be_a(Sendline::APITimeoutError)
      expect(error).to be_a(Sendline::APIConnectionError)
      expect(took).to be_between(0.45, 3)
    end

    it 'takes a timeout per call' do
      server = serve { :hang }
      took = elapsed do
        expect { client_for(server, max_retries: 0).contacts.get('ct_1', timeout: 0.5) }.to raise_error(Sendline::APITimeoutError)
      end
      expect(took).to be < 3
    end

    it 'raises APIConnectionError (not a timeout) for a refused port, after retrying' do
      client = client_for(LoopbackServer.refused_url, max_retries: 1)
      expect { client.contacts.get('ct_1') }.to raise_error(Sendline::APIConnectionError) { |e| expect(e).not_to be_a(Sendline::APITimeoutError) }
    end
  end

  describe 'errors' do
    {
      400 => Sendline::ValidationError, 401 => Sendline::AuthenticationError, 403 => Sendline::PermissionDeniedError,
      404 => Sendline::NotFoundError, 409 => Sendline::ConflictError, 422 => Sendline::ValidationError,
      429 => Sendline::RateLimitError, 500 => Sendline::ServerError, 418 => Sendline::SendlineError
    }.each do |status, klass|
      it "raises #{klass} for #{status}, with status, code, problem and request id" do
        server = serve { [status, PROBLEM_TYPE.merge('X-Request-Id' => 'req_1'), problem(status, 'some_code', 'It went wrong.')] }
        expect { client_for(server, max_retries: 0).contacts.get('ct_1') }.to raise_error(klass) { |e|
          expect(e.class).to eq(klass)
          expect(e.status).to eq(status)
          expect(e.code).to eq('some_code')
          expect(e.problem[:detail]).to eq('It went wrong.')
          expect(e.request_id).to eq('req_1')
          expect(e.message).to eq("#{status} some_code: It went wrong.")
        }
      end
    end

    it 'gives the field errors of a ValidationError and the existing_id of a ConflictError' do
      server = serve do |r, _|
        if r.header('idempotency-key') == 'a'
          [400, PROBLEM_TYPE, problem(400, 'validation_failed', 'Bad.', errors: [{ pointer: '/email', detail: 'must be an email' }])]
        else
          [409, PROBLEM_TYPE, problem(409, 'contact_exists', 'Exists.', existing_id: 'ct_9')]
        end
      end
      client = client_for(server)
      expect { client.contacts.create(email: 'x', idempotency_key: 'a') }.to raise_error(Sendline::ValidationError) { |e|
        expect(e.errors.map { |f| [f.pointer, f.detail] }).to eq([['/email', 'must be an email']])
      }
      expect { client.contacts.create(email: 'x', idempotency_key: 'b') }.to raise_error(Sendline::ConflictError) { |e| expect(e.existing_id).to eq('ct_9') }
    end

    it 'refuses arguments the operation does not take' do
      client = client_for('http://127.0.0.1:9')
      expect { client.contacts.list(colour: 'red') }.to raise_error(ArgumentError, /colour/)
      expect { client.contacts.get }.to raise_error(ArgumentError, /id/)
      expect { client.contacts.create(email: 'a@example.com', nickname: 'A') }.to raise_error(ArgumentError, /nickname/)
    end
  end

  describe 'configuration' do
    it 'normalises every base URL form to <origin>/api/v1, keeping the scheme' do
      server = serve { [200, JSON_TYPE, JSON.generate(CONTACT)] }
      forms = ['', '/', '/api', '/api/', '/api/v1', '/api/v1/', '/v1', '/v1/']
      forms.each { |form| client_for("#{server.url}#{form}").contacts.get('ct_1') }
      expect(server.requests.map(&:path).uniq).to eq(['/api/v1/contacts/ct_1'])
      expect(Sendline::Client.normalize_base_url('https://mail.example.com/')).to eq('https://mail.example.com/api/v1')
      expect(Sendline::Client.normalize_base_url('HTTPS://mail.example.com:8443/api')).to eq('https://mail.example.com:8443/api/v1')
      expect(Sendline::Client.normalize_base_url('http://mail.example.com/sendline/api/v1/')).to eq('http://mail.example.com/sendline/api/v1')
      expect { Sendline::Client.normalize_base_url('ftp://mail.example.com') }.to raise_error(Sendline::ConfigurationError)
    end

    it 'sends https base URLs over https, through the client and the generated Configuration' do
      client = client_for('https://mail.example.com/api/')
      expect(client.base_url).to eq('https://mail.example.com/api/v1')
      expect(client.contacts.instance_variable_get(:@api).api_client.config.base_url).to eq('https://mail.example.com/api/v1')
      config = Sendline::Configuration.new
      config.host = 'https://mail.example.com'
      expect(config.base_url).to eq('https://mail.example.com/api/v1')
    end

    it 'reads SENDLINE_API_KEY and SENDLINE_BASE_URL, and refuses a missing or empty key' do
      saved = ENV.to_h.slice('SENDLINE_API_KEY', 'SENDLINE_BASE_URL')
      ENV['SENDLINE_API_KEY'] = KEY
      ENV['SENDLINE_BASE_URL'] = 'https://env.example.com'
      expect(Sendline::Client.new.base_url).to eq('https://env.example.com/api/v1')
      ENV.delete('SENDLINE_BASE_URL')
      expect(Sendline::Client.new.base_url).to eq('http://localhost:3000/api/v1')
      ENV.delete('SENDLINE_API_KEY')
      expect { Sendline::Client.new }.to raise_error(Sendline::ConfigurationError, /SENDLINE_API_KEY/)
      expect { Sendline::Client.new(api_key: ' ') }.to raise_error(Sendline::ConfigurationError)
    ensure
      %w[SENDLINE_API_KEY SENDLINE_BASE_URL].each { |name| saved.key?(name) ? ENV[name] = saved[name] : ENV.delete(name) }
    end

    it 'names itself sendline-ruby/0.1.0 and sends the key as a bearer token only' do
      server = serve { [200, JSON_TYPE, JSON.generate(CONTACT)] }
      client_for(server).contacts.get('ct_1')
      request = server.requests.first
      expect(request.header('user-agent')).to eq('sendline-ruby/0.1.0')
      expect(request.header('authorization')).to eq("Bearer #{KEY}")
      expect(request.header('x-api-key')).to be_nil
    end

    it 'logs in and uses the session token' do
      server = serve do |r, _|
        if r.path.end_with?('/auth/login')
          [200, JSON_TYPE, JSON.generate(success: true, token: 'jwt.token.here', refresh_token: 'r', expires_in: 900,
                                         user: { id: 'usr_1', email: 'a@example.com', name: 'A', role: 'owner', account_id: 'acc_1', created_at: '2026-11-23T06:00:00Z' })]
        else
          [200, JSON_TYPE, JSON.generate(CONTACT)]
        end
      end
      client = Sendline::Client.login(email: 'a@example.com', password: 'pw', base_url: server.url)
      client.contacts.get('ct_1')
      expect(server.requests.first.header('authorization')).to be_nil
      expect(JSON.parse(server.requests.first.body)).to eq('email' => 'a@example.com', 'password' => 'pw')
      expect(server.requests.last.header('authorization')).to eq('Bearer jwt.token.here')
    end

    it 'keeps the key out of inspect, pp and NoMethodError messages' do
      client = client_for('https://mail.example.com')
      config = Sendline::Configuration.new
      config.access_token = KEY
      config.api_key['X-API-Key'] = KEY
      shown = [client, client.contacts, client.contacts.list, client.instance_variable_get(:@transport), config, Sendline::ApiClient.new(config),
               Sendline::ContactsApi.new(Sendline::ApiClient.new(config))]
      shown.each do |object|
        expect(object.inspect).not_to include(KEY)
        expect(object.to_s).not_to include(KEY)
        expect(object.pretty_inspect).not_to include(KEY)
        expect { object.no_such_method }.to raise_error(NoMethodError) { |e| expect(e.message).not_to include(KEY) }
      end
    end
  end

  describe 'lists' do
    it 'pages lazily through every item, following next_cursor' do
      server = serve do |r, _|
        page = r.query['cursor'] == 'c2' ? { data: [CONTACT.merge(id: 'ct_3', email: 'c@example.com')], next_cursor: nil, has_more: false } : { data: [CONTACT, CONTACT.merge(id: 'ct_2', email: 'b@example.com')], next_cursor: 'c2', has_more: true }
        [200, JSON_TYPE, JSON.generate(page)]
      end
      list = client_for(server).contacts.list(tag: 'vip', limit: 2)
      expect(server.requests).to be_empty
      expect(list).to be_a(Enumerable)
      expect(list.map(&:email)).to eq(['ada@example.com', 'b@example.com', 'c@example.com'])
      expect(server.requests.map(&:query)).to eq([{ 'tag' => 'vip', 'limit' => '2' }, { 'tag' => 'vip', 'limit' => '2', 'cursor' => 'c2' }])
      expect(list.first_page.next_cursor).to eq('c2')
      expect(list.first(1).map(&:id)).to eq(['ct_1'])
    end
  end

  describe 'dates' do
    it 'sends Time, DateTime and strings as RFC 3339 in queries and bodies' do
      server = serve { |r, _| r.method == 'GET' ? [200, JSON_TYPE, '{"data":[],"next_cursor":null,"has_more":false}'] : [200, JSON_TYPE, '{}'] }
      client = client_for(server)
      client.contacts.list(created_after: Time.utc(2026, 11, 23, 6), created_before: Time.new(2026, 11, 23, 8, 0, 0, '+02:00')).to_a
      client.contacts.list(created_after: DateTime.new(2026, 11, 23, 6, 0, 0), created_before: '2026-11-23T06:00:00Z').to_a
      expect(server.requests.map(&:query)).to eq([
                                                    { 'created_after' => '2026-11-23T06:00:00.000Z', 'created_before' => '2026-11-23T08:00:00.000+02:00' },
                                                    { 'created_after' => '2026-11-23T06:00:00.000+00:00', 'created_before' => '2026-11-23T06:00:00Z' }
                                                  ])
      client.campaigns.schedule('cmp_1', scheduled_at: Time.utc(2026, 11, 23, 6)) rescue nil # rubocop:disable Style/RescueModifier
      expect(JSON.parse(server.requests.last.body)).to eq('scheduled_at' => '2026-11-23T06:00:00.000Z')
    end

    it 'sends Time as RFC 3339 through the generated layer too' do
      server = serve { [200, JSON_TYPE, '{"data":[],"next_cursor":null,"has_more":false}'] }
      uri = URI(server.url)
      config = Sendline::Configuration.new
      config.host = "#{uri.host}:#{uri.port}"
      Sendline::ContactsApi.new(Sendline::ApiClient.new(config)).list(created_after: Time.utc(2026, 11, 23, 6))
      expect(server.requests.first.query).to eq('created_after' => '2026-11-23T06:00:00.000Z')
    end
  end

  describe 'CSV import' do
    IMPORT = { id: 'imp_1', status: 'queued', mode: 'upsert', total_rows: 0, processed_rows: 0, created: 0, updated: 0, skipped: 0, failed: 0,
               errors: [], created_at: '2026-11-23T06:00:00Z' }.freeze
    CSV_TEXT = "E-mail,first_name\nada@example.com,Ada\n".freeze

    def import_server
      serve { [202, JSON_TYPE, JSON.generate(IMPORT)] }
    end

    def parts(request)
      boundary = request.header('content-type')[/boundary=("?)([^";]+)\1/, 2]
      request.body.split("--#{boundary}").filter_map do |part|
        head, body = part.split("\r\n\r\n", 2)
        name = head.to_s[/name="([^"]+)"/, 1] or next
        [name, body.chomp("\r\n")]
      end.to_h
    end

    it 'sends a path, CSV text or an IO as a multipart file with mode, tags and mapping' do
      server = import_server
      client = client_for(server)
      Tempfile.create(['contacts', '.csv']) do |file|
        file.write(CSV_TEXT)
        file.flush
        client.contacts.import_csv(file.path, mode: 'create_only', tags: %w[imported vip], mapping: { 'E-mail' => 'email' })
        client.contacts.import_csv(Pathname(file.path))
        File.open(file.path) { |io| client.contacts.import_csv(io) }
      end
      import = client.contacts.import_csv(CSV_TEXT)
      client.contacts.import_csv(StringIO.new(CSV_TEXT))
      expect(import).to be_a(Sendline::ContactImport)
      expect(server.requests.size).to eq(5)
      server.requests.each do |request|
        expect(request.path).to eq('/api/v1/contacts/import')
        expect(request.header('content-type')).to start_with('multipart/form-data; boundary=')
        expect(request.header('idempotency-key')).not_to be_nil
        expect(parts(request)['file']).to eq(CSV_TEXT)
      end
      expect(parts(server.requests.first).slice('mode', 'tags', 'mapping')).to eq('mode' => 'create_only', 'tags' => 'imported,vip', 'mapping' => 'E-mail:email')
    end

    it 'refuses a path that does not exist with a ValidationError at file' do
      expect { client_for('http://127.0.0.1:9').contacts.import_csv('/no/such/file.csv') }.to raise_error(Sendline::ValidationError) { |error|
        expect([error.status, error.code, error.errors.map(&:pointer)]).to eq([nil, 'validation_failed', ['file']])
        expect(error.message).to include('/no/such/file.csv: No such file or directory')
      }
    end

    it 'waits for the import to finish' do
      server = serve { |_, i| [200, JSON_TYPE, JSON.generate(IMPORT.merge(status: i < 2 ? 'running' : 'completed', created: 1))] }
      done = client_for(server).contact_imports.wait('imp_1', interval: 0.05)
      expect(done.status).to eq('completed')
      expect(server.requests.size).to eq(3)
    end
  end

  describe 'emails.send' do
    it 'sends plain and named addresses, mixed in one list, as given' do
      sent = { data: [{ id: 'em_1', email: 'ada@example.com', kind: 'to', status: 'queued', reason: nil }] }
      server = serve { [202, JSON_TYPE, JSON.generate(sent)] }
      result = client_for(server).emails.send(
        from: 'receipts@shop.example',
        to: ['ada@example.com', { email: 'bob@example.com', name: 'Bob' }, Sendline::EmailNamedAddress.new(email: 'cat@example.com')],
        cc: [{ 'email' => 'dan@example.com' }, 'eve@example.com'],
        bcc: ['fay@example.com'],
        subject: 'Receipt',
        text: 'Thanks!'
      )
      expect(result.data.first.id).to eq('em_1')
      body = JSON.parse(server.requests.first.body)
      expect(body.slice('from', 'to', 'cc', 'bcc')).to eq(
        'from' => 'receipts@shop.example',
        'to' => ['ada@example.com', { 'email' => 'bob@example.com', 'name' => 'Bob' }, { 'email' => 'cat@example.com' }],
        'cc' => [{ 'email' => 'dan@example.com' }, 'eve@example.com'],
        'bcc' => ['fay@example.com']
      )
    end

    it 'builds both forms from parsed JSON (string keys) into the generated request model' do
      json = '{"from":"receipts@shop.example","to":["ada@example.com",{"email":"bob@example.com","name":"Bob"}],"subject":"Hi","text":"x"}'
      request = Sendline::EmailSendRequest.build_from_hash(JSON.parse(json))
      expect(request.to[1]).to be_a(Sendline::EmailNamedAddress)
      expect(JSON.parse(request.to_hash.to_json)).to eq(JSON.parse(json).merge('track_opens' => false, 'track_clicks' => false))
    end
  end
end
