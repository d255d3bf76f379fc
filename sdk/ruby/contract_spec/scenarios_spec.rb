# The shared contract scenarios (test/contract/scenarios) through the Ruby SDK.
# Operation ids map to SDK calls by rule: `Contacts_create` is `Sendline::ContactsApi#create`.
# Run by test/contract/other-sdks.test.ts against a live server (SENDLINE_BASE_URL).
require 'json'
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
    it "#{File.basename(file)}: #{scenario['name']}" do
      vars = { 'unique' => SecureRandom.hex(4), 'webhook_url' => ENV.fetch('SENDLINE_WEBHOOK_URL', '') }
      runner = ScenarioRunner.new
      scenario['steps'].each_with_index do |step, index|
        where = "#{File.basename(file)} step #{index + 1} (#{step['op'] || 'auth'})"
        if step.key?('auth')
          runner.authenticate(ScenarioRules.interpolate(step['auth'], vars))
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
