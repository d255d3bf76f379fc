# Verifying Sendline webhooks (Standard Webhooks signatures). Hand-written; kept across regeneration.
require 'base64'
require 'json'
require 'openssl'
require 'sendline'

module Sendline
  module Webhooks
    class VerificationError < StandardError; end

    # Checks `webhook-id`, `webhook-timestamp` and `webhook-signature` against the endpoint's
    # `whsec_…` secret and answers the typed event (e.g. a Sendline::ContactCreatedEvent).
    # Pass the raw body exactly as received.
    def self.verify(secret, headers, body, tolerance: 300)
      lowered = headers.to_h { |k, v| [k.to_s.downcase, v] }
      id, timestamp, signatures = lowered.values_at('webhook-id', 'webhook-timestamp', 'webhook-signature')
      raise VerificationError, 'missing webhook headers' unless id && timestamp && signatures
      raise VerificationError, 'timestamp outside the tolerance' unless timestamp.match?(/\A\d+\z/) && (Time.now.to_i - timestamp.to_i).abs <= tolerance

      key = Base64.strict_decode64(secret.delete_prefix('whsec_'))
      expected = OpenSSL::HMAC.digest('SHA256', key, "#{id}.#{timestamp}.#{body}")
      valid = signatures.split(' ').any? do |entry|
        version, signature = entry.split(',', 2)
        given = Base64.decode64(signature.to_s)
        version == 'v1' && given.bytesize == expected.bytesize && OpenSSL.fixed_length_secure_compare(given, expected)
      end
      raise VerificationError, 'no signature matches' unless valid

      Sendline::Event.build(JSON.parse(body, symbolize_names: true))
    end
  end
end
