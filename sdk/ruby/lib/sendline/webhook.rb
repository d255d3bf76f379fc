# Verifying (and, for tests of receivers, signing) Sendline webhooks: Standard Webhooks signatures.
# Hand-written; kept across regeneration.
require 'base64'
require 'json'
require 'openssl'
require 'time'
require 'sendline/errors'

module Sendline
  # An event of a type this version of the SDK does not know (a newer server's), or of a known type
  # whose payload does not fit its typed model: the envelope, and `data` as a Hash with symbol keys.
  UnknownEvent = Struct.new(:id, :type, :created_at, :account_id, :data, keyword_init: true) do
    alias_method :to_hash, :to_h
  end

  class Webhook
    TOLERANCE = 300

    # secret: the endpoint's `whsec_…` secret (the prefix is optional).
    def initialize(secret, tolerance: TOLERANCE)
      @key = Base64.strict_decode64(secret.to_s.strip.delete_prefix('whsec_'))
      raise ArgumentError, 'empty' if @key.empty?

      @tolerance = tolerance
    rescue ArgumentError
      raise WebhookVerificationError, 'webhook secret is not a whsec_ base64 secret'
    end

    # payload: the raw body exactly as received (a String of any encoding). headers: a Hash of the
    # request's headers, keys in any case, values Strings or Arrays of Strings; a Rack env
    # (HTTP_WEBHOOK_ID, …) works too. Answers the typed event (e.g. Sendline::ContactCreatedEvent),
    # or a Sendline::UnknownEvent for a type this SDK does not know (or a payload that does not fit
    # its type). Raises WebhookVerificationError.
    def verify(payload, headers)
      id, timestamp, signatures = read_headers(headers)
      at = timestamp.match?(/\A\d{1,15}\z/) ? Integer(timestamp, 10) : nil
      raise WebhookVerificationError, 'webhook timestamp is not a number' if at.nil?
      raise WebhookVerificationError, "webhook timestamp is more than #{@tolerance} s from now" if (Time.now.to_i - at).abs > @tolerance

      expected = digest(id, timestamp, payload)
      raise WebhookVerificationError, 'no webhook signature matches' unless signatures.split(' ').any? { |entry| matches?(entry, expected) }

      parse(payload)
    end

    # The `webhook-signature` value for this delivery: `v1,<base64>`.
    def sign(msg_id, timestamp, payload)
      "v1,#{Base64.strict_encode64(digest(msg_id, timestamp.is_a?(Time) ? timestamp.to_i : timestamp, payload))}"
    end

    def inspect
      "#<#{self.class.name} tolerance=#{@tolerance}>"
    end

    private

    def digest(msg_id, timestamp, payload)
      OpenSSL::HMAC.digest('SHA256', @key, "#{msg_id}.#{timestamp}.".b + payload.to_s.b)
    end

    def matches?(entry, expected)
      version, signature = entry.split(',', 2)
      return false unless version == 'v1' && signature

      given = Base64.strict_decode64(signature)
      given.bytesize == expected.bytesize && OpenSSL.fixed_length_secure_compare(given, expected)
    rescue ArgumentError
      false
    end

    def read_headers(headers)
      found = {}
      headers.each do |key, value|
        name = key.to_s.downcase.tr('_', '-').delete_prefix('http-')
        next unless %w[webhook-id webhook-timestamp webhook-signature].include?(name)

        values = Array(value).map(&:to_s)
        found[name] = name == 'webhook-signature' ? values.join(' ') : values.first
      end
      missing = %w[webhook-id webhook-timestamp webhook-signature].reject { |name| found[name] && !found[name].empty? }
      raise WebhookVerificationError, 'missing webhook-id, webhook-timestamp or webhook-signature header' unless missing.empty?

      found.values_at('webhook-id', 'webhook-timestamp', 'webhook-signature')
    end

    NOT_AN_EVENT = 'webhook body is not a JSON event'.freeze

    def parse(payload)
      text = payload.to_s.dup.force_encoding(Encoding::UTF_8)
      raise WebhookVerificationError, NOT_AN_EVENT unless text.valid_encoding?

      event = begin
        JSON.parse(text, symbolize_names: true)
      rescue JSON::ParserError
        raise WebhookVerificationError, NOT_AN_EVENT
      end
      raise WebhookVerificationError, NOT_AN_EVENT unless event.is_a?(Hash) && event[:type].is_a?(String)

      typed(event) || UnknownEvent.new(id: event[:id], type: event[:type], created_at: time(event[:created_at]),
                                       account_id: event[:account_id], data: event[:data])
    end

    # The generated event class for a known type; nil for an unknown one, or one whose payload does
    # not fit it (the generated models refuse a missing required field at any depth).
    def typed(event)
      Event.build(event)
    rescue StandardError
      nil
    end

    def time(value)
      value.is_a?(String) ? Time.iso8601(value) : value
    rescue ArgumentError
      value
    end
  end
end
