# The shared contract scenarios (test/contract/scenarios) through the Ruby SDK.
# `op` steps call the generated layer by rule (`Contacts_create` is `Sendline::ContactsApi#create`);
# `client` steps call Sendline::Client (`contacts.create` is `client.contacts.create(email: …)`).
# Run by test/contract/other-sdks.test.ts against a live server (SENDLINE_BASE_URL).
require 'json'
require 'pathname'
require 'securerandom'
require 'uri'
require 'sendline'

SCENARIOS = File.expand_path('../../../test/contract/scenarios', __dir__)

module ScenarioRules
  module_function

  def snake(name)
    name.gsub(/([a-z0-9])([A-Z])/, '\1_\2').downcase
  end

  def interpolate(value, vars)
    case value
    when String
      whole = value.match(/\A\{\{(\w+)\}\}\z/)
      whole ? vars[whole[1]] : value.gsub(/\{\{(\w+)\}\}/) { vars[Regexp.last_match(1)].to_s }
    when Array then value.map { |v| interpolate(v, vars) }
    when Hash then value.to_h { |k, v| [k, interpolate(v, vars)] }
    else value
    end
  end

  def dig(value, path)
    path.split('.').reduce(value) do |v, key|
      next nil if v.nil?
      v.is_a?(Array) ? v[key.to_i] : v[key]
    end
  end

  def mismatch(actual, expected, at = '$')
    case expected
    when Array
      return "#{at}: expected an array of #{expected.size}, got #{actual.to_json}" unless actual.is_a?(Array) && actual.size == expected.size
      expected.each_with_index { |item, i| (problem = mismatch(actual[i], item, "#{at}[#{i}]")) and return problem }
      nil
    when Hash
      return "#{at}: expected an object, got #{actual.to_json}" unless actual.is_a?(Hash)
      expected.each { |key, item| (problem = mismatch(actual[key], item, "#{at}.#{key}")) and return problem }
      nil
    else
      actual == expected ? nil : "#{at}: expected #{expected.to_json}, got #{actual.to_json}"
    end
  end

  # `{ "$date": "…" }` becomes a native Time.
  def native(value)
    case value
    when Hash then value.keys == ['$date'] ? Time.iso8601(value['$date']) : value.to_h { |k, v| [k, native(v)] }
    when Array then value.map { |v| native(v) }
    else value
    end
  end

  def type_of(value)
    case value
    when nil then 'null'
    when true, false then 'boolean'
    when Integer then 'integer'
    when Float then 'number'
    when String then 'string'
    when Array then 'array'
    else 'object'
    end
  end
end

class ScenarioRunner
  def initialize
    authenticate(nil)
  end

  def authenticate(auth)
    uri = URI(ENV.fetch('SENDLINE_BASE_URL'))
    config = Sendline::Configuration.new
    config.scheme = uri.scheme
    config.host = "#{uri.host}:#{uri.port}"
    config.base_path = uri.path
    config.access_token = auth && auth['bearer']
    config.api_key['X-API-Key'] = auth['api_key'] if auth && auth['api_key']
    @client = Sendline::ApiClient.new(config)
    key = auth && (auth['api_key'] || auth['bearer'])
    @sdk = key && Sendline::Client.new(api_key: key, base_url: ENV.fetch('SENDLINE_BASE_URL'))
  end

  # A `client` step: [result as plain JSON, nil] or [nil, the Sendline::SendlineError raised].
  def client_call(step, vars)
    resource, method = step['client'].split('.')
    args = ScenarioRules.native(ScenarioRules.interpolate(step['args'] || {}, vars)).transform_keys(&:to_sym)
    args[:idempotency_key] = ScenarioRules.interpolate(step['idempotency_key'], vars) if step['idempotency_key']
    target = @sdk.public_send(resource)
    result =
      if method == 'import_csv'
        import = target.import_csv(args.key?(:path) ? Pathname(args.delete(:path)) : args.delete(:csv), **args)
        step['wait'] ? @sdk.contact_imports.wait(import.id, timeout: 20, interval: 0.1) : import
      else
        target.public_send(method, *[args.delete(:id)].compact, **args)
      end
    [step['collect'] ? result.map { |item| plain(item)[step['collect']] } : plain(result), nil]
  rescue Sendline::SendlineError => e
    [nil, e]
  end

  # A `webhook` step: signed with the SDK, altered when `tamper`, verified with capitalised
  # headers and the body as bytes.
  def webhook(step)
    hook = Sendline::Webhook.new(step['secret'])
    body = JSON.generate(step['event'])
    id = step['event']['id']
    at = Time.now.to_i
    headers = { 'Webhook-Id' => id, 'Webhook-Timestamp' => at.to_s, 'Webhook-Signature' => hook.sign(id, at, body) }
    body = body.sub('}}', ',"tampered":true}}') if step['tamper']
    [plain(hook.verify(body.b, headers)), nil]
  rescue Sendline::SendlineError => e
    [nil, e]
  end

  def call(op, path, query, body)
    resource, method = op.split('_', 2)
    api = Sendline.const_get("#{resource}Api").new(@client)
    name = "#{ScenarioRules.snake(method)}_with_http_info"
    # The generator escapes names Ruby reserves (`send` becomes `call_send`).
    name = "call_#{name}" unless api.respond_to?(name)
    given = (path || {}).merge(query || {})
    args = []
    api.method(name).parameters.each do |kind, param|
      next unless kind == :req
      args << (given.key?(param.to_s) ? given[param.to_s] : model_for(op, param).build_from_hash(body))
    end
    required = api.method(name).parameters.select { |kind, _| kind == :req }.map(&:last)
    opts = (query || {}).to_h { |k, v| [k.to_sym, v] }.reject { |k, _| required.include?(k) }
    data, status, = api.public_send(name, *args, opts)
    [status, plain(data)]
  rescue Sendline::ApiError => e
    [e.code, e.response_body && !e.response_body.empty? ? JSON.parse(e.response_body) : nil]
  end

  private

  # The model class of a body parameter, from its name (`contact_create` → ContactCreate).
  def model_for(_op, param)
    Sendline.const_get(param.to_s.split('_').map(&:capitalize).join)
  end

  def plain(data)
    return data if data.nil? || data.is_a?(String)
    JSON.parse((data.respond_to?(:to_hash) ? data.to_hash : data).to_json)
  end
end

RSpec.describe 'contract scenarios (Ruby SDK)' do
  Dir[File.join(SCENARIOS, '*.json')].sort.each do |file|
    scenario = JSON.parse(File.read(file))
    # Every step runs even after one fails (when it can): the report lists all of them.
    it "#{File.basename(file)}: #{scenario['name']}", :aggregate_failures do
      vars = { 'unique' => SecureRandom.hex(4), 'webhook_url' => ENV.fetch('SENDLINE_WEBHOOK_URL', '') }
      runner = ScenarioRunner.new
      scenario['steps'].each_with_index do |step, index|
        where = "#{File.basename(file)} step #{index + 1} (#{step['op'] || 'auth'})"
        if step.key?('auth')
          runner.authenticate(ScenarioRules.interpolate(step['auth'], vars))
          next
        end
        if step['client'] || step['webhook']
          where = "#{File.basename(file)} step #{index + 1} (#{step['client'] || 'webhook'})"
          result, error = step['client'] ? runner.client_call(step, vars) : runner.webhook(ScenarioRules.interpolate(step['webhook'], vars))
          if (wanted = ScenarioRules.interpolate(step['error'], vars))
            expect(error).to be_a(Sendline.const_get(wanted['class'])), "#{where}: expected #{wanted['class']}, got #{error.inspect} / #{result.inspect}"
            next unless error

            expect(error.status).to eq(wanted['status']), "#{where}: #{error.message}" if wanted.key?('status')
            expect(error.code).to eq(wanted['code']), "#{where}: #{error.message}" if wanted.key?('code')
            expect(error.existing_id).to eq(wanted['existing_id']), where if wanted.key?('existing_id')
            expect(error.errors.map(&:pointer)).to include(wanted['pointer']), where if wanted.key?('pointer')
          else
            expect(error).to be_nil, "#{where}: #{error&.class}: #{error&.message}"
            expect(ScenarioRules.mismatch(result, ScenarioRules.interpolate(step['expect'], vars))).to be_nil, where if step.key?('expect')
            (step['capture'] || {}).each { |name, path| vars[name] = ScenarioRules.dig(result, path) }
          end
          next
        end
        started = Time.now
        attempts = 0
        status = body = nil
        loop do
          attempts += 1
          status, body = runner.call(step['op'], *%w[path query body].map { |k| ScenarioRules.interpolate(step[k], vars) })
          next if status != step['status'] && attempts < (step['attempts'] || 1)
          break unless step['until'] && ScenarioRules.mismatch(body, ScenarioRules.interpolate(step['until'], vars))
          raise "#{where}: never reached #{step['until']}: #{body}" if Time.now - started > 20
          sleep 0.1
        end
        expect(status).to eq(step['status']), "#{where}: status #{status}: #{body.inspect}"
        if step['problem']
          expect(ScenarioRules.mismatch(body, ScenarioRules.interpolate(step['problem'], vars))).to be_nil, where
          expect(body['title']).to be_a(String), where
        end
        expect(ScenarioRules.mismatch(body, ScenarioRules.interpolate(step['expect'], vars))).to be_nil, where if step['expect']
        expect(body.to_s).to include(step['contains']), where if step['contains']
        (step['types'] || {}).each do |path, wanted|
          actual = ScenarioRules.type_of(ScenarioRules.dig(body, path))
          expect(actual == wanted || (wanted == 'number' && actual == 'integer')).to be(true), "#{where}: #{path} is #{actual}, not #{wanted}"
        end
        (step['capture'] || {}).each { |name, path| vars[name] = ScenarioRules.dig(body, path) }
      end
    end
  end
end
