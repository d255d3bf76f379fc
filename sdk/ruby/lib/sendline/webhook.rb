# Verifying (and, for tests of receivers, signing) Sendline webhooks: Standard Webhooks signatures.
# Hand-written; kept across regeneration.
require 'base64'
require 'json'
require 'openssl'
require 'time'
require 'sendline/errors'

module Sendline
  # An event of a type this version of the SDK does not know (a newer server's): the envelope, and
  # `data` as a Hash with symbol keys.
  GenericEvent = Struct.new(:id, :type, :created_at, :account_id, :data, keyword_init: true) do
    alias_method :to_hash, :to_h
  end

  class Webhook
    TOLERANCE = 300

    # secret: the endpoint's `whsec_…` secret (the prefix is optional).
    def initialize(secret, tolerance: TOLERANCE)
      @key = Base64.strict_decode64(secret.to_s.delete_prefix('whsec_'))
      @tolerance = tolerance
    rescue ArgumentError
      raise WebhookVerificationError, 'the webhook secret is not base64 (whsec_…)'
    end

    # payload: the raw body exactly as received (a String of any encoding). headers: a Hash of the
    # request's headers, keys in any case, values Strings or Arrays of Strings; a Rack env
    # (HTTP_WEBHOOK_ID, …) works too. Answers the typed event (e.g. Sendline::ContactCreatedEvent),
    # or a Sendline::GenericEvent for a type this SDK does not know. Raises WebhookVerificationError.
    def verify(payload, headers)
      id, timestamp, signatures = read_headers(headers)
      at = Integer(timestamp, 10)
      now = Time.now.to_i
      raise WebhookVerificationError, 'the webhook timestamp is too old' if now - at > @tolerance
      raise WebhookVerificationError, 'the webhook timestamp is in the future' if at - now > @tolerance

      expected = digest(id, timestamp, payload)
      raise WebhookVerificationError, 'no webhook signature matches' unless signatures.split(' ').any? { |entry| matches?(entry, expected) }

      parse(payload)
    rescue ArgumentError, TypeError, JSON::ParserError => e
      raise WebhookVerificationError, "the webhook cannot be read: #{e.message}"
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
      raise WebhookVerificationError, "missing webhook header(s): #{missing.join(', ')}" unless missing.empty?

      found.values_at('webhook-id', 'webhook-timestamp', 'webhook-signature')
    end

    def parse(payload)
      text = payload.to_s.dup.force_encoding(Encoding::UTF_8)
      raise WebhookVerificationError, 'the webhook body is not UTF-8' unless text.valid_encoding?

      event = JSON.parse(text, symbolize_names: true)
      raise WebhookVerificationError, 'the webhook body is not an event' unless event.is_a?(Hash) && event[:type].is_a?(String)

      typed(event) || GenericEvent.new(id: event[:id], type: event[:type], created_at: time(event[:created_at]),
                                       account_id: event[:account_id], data: event[:data])
    end

    # The generated event class for a known type; nil for an unknown one (or one that does not fit it).
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
