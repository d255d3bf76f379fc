# The errors Sendline::Client raises. Hand-written; kept across regeneration.
require 'json'
require 'time'

module Sendline
  # Every error of the client. `status`, `code` and `problem` (the RFC 9457 body, symbol keys)
  # are set when the server answered; `request_id` when it sent an X-Request-Id; `retry_after`
  # (seconds) when it sent a Retry-After.
  class SendlineError < StandardError
    attr_reader :status, :code, :problem, :request_id, :retry_after

    def initialize(message = nil, status: nil, code: nil, problem: nil, request_id: nil, retry_after: nil)
      @status = status
      @code = code
      @problem = problem
      @request_id = request_id
      @retry_after = retry_after
      super(message)
    end

    # The error for an answer the server gave with a status other than 2xx.
    def self.from_response(status, headers, body)
      problem = parse_problem(body)
      code = problem[:code]
      detail = problem[:detail] || problem[:title] || body.to_s[0, 200]
      message = ["#{status}#{code ? " #{code}" : ''}", detail].reject { |part| part.to_s.empty? }.join(': ')
      args = { status: status, code: code, problem: problem, request_id: header(headers, 'x-request-id'),
               retry_after: retry_after_seconds(header(headers, 'retry-after')) }
      case status
      when 400, 422 then ValidationError.new(message, **args)
      when 401 then AuthenticationError.new(message, **args)
      when 403 then PermissionDeniedError.new(message, **args)
      when 404 then NotFoundError.new(message, **args)
      when 409 then ConflictError.new(message, **args)
      when 429 then RateLimitError.new(message, **args)
      when 500..599 then ServerError.new(message, **args)
      else SendlineError.new(message, **args)
      end
    end

    # A ValidationError raised before any request (status nil): one field error at `pointer`.
    def self.local_validation(pointer, detail, code: 'validation_failed', message: nil)
      problem = { title: 'Invalid argument', code: code, detail: message || "#{pointer}: #{detail}",
                  errors: [{ pointer: pointer, detail: detail }] }
      ValidationError.new(problem[:detail], code: code, problem: problem)
    end

    # Retry-After in seconds, from a number of seconds or an HTTP date; nil when absent or unreadable.
    def self.retry_after_seconds(value)
      return nil if value.nil? || value.to_s.strip.empty?
      return Float(value) if value.to_s.strip.match?(/\A\d+(\.\d+)?\z/)

      [Time.httpdate(value.to_s.strip) - Time.now, 0].max
    rescue ArgumentError
      nil
    end

    def self.header(headers, name)
      return nil unless headers
      value = headers.find { |key, _| key.to_s.casecmp?(name) }&.last
      value.is_a?(Array) ? value.first : value
    end

    def self.parse_problem(body)
      parsed = JSON.parse(body.to_s, symbolize_names: true)
      parsed.is_a?(Hash) ? parsed : {}
    rescue JSON::ParserError
      {}
    end
    private_class_method :header, :parse_problem
  end

  # 400 and 422: the request does not fit; `errors` lists the fields at fault (Sendline::FieldError).
  class ValidationError < SendlineError
    def errors
      Array(problem && problem[:errors]).map { |error| FieldError.build_from_hash(error) }
    end
  end

  # 401: no valid credential.
  class AuthenticationError < SendlineError; end

  # 403: the key lacks the scope, or is used from an address it does not allow.
  class PermissionDeniedError < SendlineError; end

  # 404.
  class NotFoundError < SendlineError; end

  # 409: `existing_id` names the resource that already exists, when the server says.
  class ConflictError < SendlineError
    def existing_id
      problem && problem[:existing_id]
    end
  end

  # 429: `retry_after` is the number of seconds the server asked to wait.
  class RateLimitError < SendlineError; end

  # 5xx.
  class ServerError < SendlineError; end

  # No answer: the connection failed (refused, reset, DNS, TLS).
  class APIConnectionError < SendlineError; end

  # No answer within the timeout.
  class APITimeoutError < APIConnectionError; end

  # The client is configured wrongly (no API key, a base URL that is not http(s)).
  class ConfigurationError < SendlineError; end

  # A webhook delivery whose signature, timestamp or body does not verify.
  class WebhookVerificationError < SendlineError; end
end
