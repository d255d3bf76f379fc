# Sendline::Client, the one-line entry to the API. Hand-written; kept across regeneration.
require 'uri'
require 'sendline/errors'
require 'sendline/transport'
require 'sendline/pagination'
require 'sendline/resources'
require 'sendline/webhook'

module Sendline
  class Client
    DEFAULT_BASE_URL = 'http://localhost:3000'.freeze
    DEFAULT_TIMEOUT = 60
    DEFAULT_MAX_RETRIES = 2

    RESOURCES = {
      contacts: Resources::Contacts,
      contact_imports: Resources::ContactImports,
      campaigns: Resources::Campaigns,
      api_keys: Resources::ApiKeys,
      webhooks: Resources::Webhooks,
      events: Resources::Events,
      tracking: Resources::Tracking,
      analytics: Resources::Analytics,
      conversions: Resources::Conversions,
      payments: Resources::Payments,
      users: Resources::Users,
      auth: Resources::Auth,
      custom_fields: Resources::CustomFields,
      segments: Resources::Segments,
      tags: Resources::Tags,
      templates: Resources::Templates,
      lists: Resources::Lists,
      contact_lists: Resources::ContactLists,
      public_lists: Resources::PublicLists,
      emails: Resources::Emails,
      suppressions: Resources::Suppressions,
      topics: Resources::Topics,
      contact_topics: Resources::ContactTopics,
      contact_exports: Resources::ContactExports,
      accounts: Resources::Accounts,
      domains: Resources::Domains,
      automations: Resources::Automations,
      contact_automations: Resources::ContactAutomations,
      contact_events: Resources::ContactEvents,
    }.freeze

    attr_reader :base_url, :timeout, :max_retries
    attr_reader(*RESOURCES.keys)

    # api_key: an API key or a session's JWT (default: ENV['SENDLINE_API_KEY']).
    # base_url: https://host, …/api or …/api/v1, with or without a trailing slash
    # (default: ENV['SENDLINE_BASE_URL'], else http://localhost:3000).
    # timeout: seconds for a whole request (nil or 0: none); max_retries: 0 disables retries.
    def initialize(api_key: ENV.fetch('SENDLINE_API_KEY', nil), base_url: ENV.fetch('SENDLINE_BASE_URL', nil),
                   timeout: DEFAULT_TIMEOUT, max_retries: DEFAULT_MAX_RETRIES)
      key = self.class.checked_key(api_key)
      @base_url = self.class.normalize_base_url(base_url)
      @timeout = timeout
      @max_retries = max_retries
      @transport = self.class.transport(@base_url, key, timeout, max_retries)
      RESOURCES.each { |name, resource| instance_variable_set(:"@#{name}", resource.new(@transport)) }
    end

    # Logs in with a user's email and password and answers a client using the session's JWT.
    def self.login(email:, password:, base_url: ENV.fetch('SENDLINE_BASE_URL', nil), timeout: DEFAULT_TIMEOUT,
                   max_retries: DEFAULT_MAX_RETRIES)
      url = normalize_base_url(base_url)
      session = Resources::Auth.new(transport(url, nil, timeout, max_retries)).login(email: email, password: password)
      new(api_key: session.token, base_url: url, timeout: timeout, max_retries: max_retries)
    end

    # The key without surrounding whitespace (a trailing newline from a file); ConfigurationError when
    # it is missing, or holds anything but visible ASCII (a header line must never be injectable).
    # The message never shows the key or any part of it.
    def self.checked_key(api_key)
      key = api_key.to_s.dup.force_encoding(Encoding::BINARY).strip
      if key.empty?
        raise ConfigurationError, 'no API key: pass api_key: (an API key or a JWT from Sendline::Client.login) or set SENDLINE_API_KEY'
      end
      unless key.match?(/\A[\x21-\x7E]+\z/n)
        raise ConfigurationError, 'the API key holds a character other than visible ASCII (a space, tab, line break or control character inside it?)'
      end

      key.force_encoding(Encoding::UTF_8)
    end

    # <origin>[/prefix]/api/v1 from https://host, https://host/, …/api, …/api/v1 or …/v1 (any trailing
    # slash). The scheme is kept as given: https is never downgraded.
    def self.normalize_base_url(url)
      text = (url.nil? || url.to_s.strip.empty? ? DEFAULT_BASE_URL : url.to_s.strip)
      uri = URI.parse(text)
      unless %w[http https].include?(uri.scheme&.downcase) && uri.host && !uri.host.empty?
        raise ConfigurationError, "base_url must be an http:// or https:// URL, not #{text.inspect}"
      end

      path = uri.path.sub(%r{/+\z}, '').sub(%r{(/api/v1|/api|/v1)\z}, '')
      "#{uri.scheme.downcase}://#{uri.host}#{uri.port == uri.default_port ? '' : ":#{uri.port}"}#{path}/api/v1"
    rescue URI::InvalidURIError
      raise ConfigurationError, "base_url must be an http:// or https:// URL, not #{text.inspect}"
    end

    # The generated layer configured for a normalised base URL (internal).
    def self.transport(base_url, token, timeout, max_retries)
      uri = URI.parse(base_url)
      config = Configuration.new
      config.scheme = uri.scheme
      config.host = uri.port == uri.default_port ? uri.host : "#{uri.host}:#{uri.port}"
      config.base_path = uri.path
      config.access_token = token
      config.logger = Logger.new(nil)
      # The server checks arguments (limits, lengths, patterns) and answers a 400 with pointers, the
      # same answer in every SDK; the generated layer's own checks would raise a bare ArgumentError.
      config.client_side_validation = false
      Transport.new(config, timeout: timeout, max_retries: max_retries)
    end

    def inspect
      "#<#{self.class.name} #{@base_url}>"
    end
  end
end
