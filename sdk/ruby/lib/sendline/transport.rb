# The generated ApiClient with Sendline's policy: a timeout for the whole request, bounded retries
# with backoff, an Idempotency-Key on every POST and typed errors. Hand-written; kept across regeneration.
require 'date'
require 'securerandom'
require 'socket'
require 'timeout'
require 'sendline/errors'

module Sendline
  class Transport < ApiClient
    BACKOFF_BASE = 0.5
    BACKOFF_CAP = 8.0
    # A Retry-After longer than this is not waited for: the RateLimitError is raised at once.
    RETRY_AFTER_CAP = 20.0
    # The server's rule for an Idempotency-Key: 1–255 printable ASCII, no space at either end.
    IDEMPOTENCY_KEY = /\A[\x21-\x7E](?:[\x20-\x7E]{0,253}[\x21-\x7E])?\z/n
    # The exception given as `cause` of an APIConnectionError, by libcurl's return code.
    CURL_ERRORS = { couldnt_connect: Errno::ECONNREFUSED, operation_timedout: Timeout::Error,
                    couldnt_resolve_host: SocketError, got_nothing: EOFError, recv_error: Errno::ECONNRESET,
                    send_error: Errno::EPIPE }.freeze

    attr_reader :timeout, :max_retries

    def initialize(config, timeout:, max_retries:)
      super(config)
      @timeout = timeout
      @max_retries = max_retries
    end

    # As ApiClient#call_api, plus the per-call options of opts[:sendline]: :timeout,
    # :idempotency_key, :max_retries.
    def call_api(http_method, path, opts = {})
      call = opts[:sendline] || {}
      opts = opts.merge(header_params: (opts[:header_params] || {}).dup)
      given_key = call[:idempotency_key]
      check_idempotency_key(given_key) unless given_key.nil?
      if http_method.to_s.casecmp?('post')
        # One key for the call, the same on every retry, so that a retried POST never acts twice.
        opts[:header_params]['Idempotency-Key'] = given_key || opts[:header_params]['Idempotency-Key'] || SecureRandom.uuid
      end
      check_header_values(opts[:header_params])
      retries = call.fetch(:max_retries, @max_retries)
      attempt = 0
      begin
        perform(http_method, path, opts, call.fetch(:timeout, @timeout))
      rescue SendlineError => e
        delay = attempt < retries ? retry_delay(e, attempt) : nil
        raise if delay.nil?

        attempt += 1
        sleep delay
        retry
      end
    end

    # Only `Authorization: Bearer <key or JWT>`, and nothing when there is no credential (login).
    def update_params_for_auth!(header_params, _query_params, _auth_names)
      token = @config.access_token_with_refresh
      header_params['Authorization'] = "Bearer #{token}" unless token.nil? || token.to_s.empty?
    end

    def inspect
      "#<#{self.class.name} #{@config.inspect} timeout=#{@timeout} max_retries=#{@max_retries}>"
    end

    private

    def perform(http_method, path, opts, timeout)
      request = build_request(http_method, path, opts)
      request.options[:timeout] = timeout if timeout&.positive?
      response = request.run
      raise_connection_error(request, response, timeout) if response.timed_out? || response.code.zero?
      raise SendlineError.from_response(response.code, response.headers, response.body) unless response.success?

      data = opts[:return_type] ? parse_answer(response, opts[:return_type]) : nil
      [data, response.code, response.headers]
    end

    # A caller's Idempotency-Key outside the server's rule is refused here: never sent, never retried.
    def check_idempotency_key(key)
      text = key.to_s.b
      return if text.match?(IDEMPOTENCY_KEY)

      detail = 'must be 1 to 255 printable ASCII characters (0x20-0x7E), without a space at either end'
      raise SendlineError.local_validation('header.Idempotency-Key', detail, code: 'invalid_idempotency_key',
                                                                           message: "invalid idempotency_key: it #{detail}")
    end

    # No value may add a header line (CR/LF injection) or carry a control character.
    def check_header_values(headers)
      headers.each do |name, value|
        next unless value.to_s.b.match?(/[\x00-\x08\x0A-\x1F\x7F]/n)

        raise SendlineError.local_validation("header.#{name}", 'must not contain a line break or a control character')
      end
    end

    # APITimeoutError / APIConnectionError naming the URL (never its query), the libcurl failure as cause.
    def raise_connection_error(request, response, timeout)
      url = request.base_url.to_s.sub(/[?#].*\z/m, '')
      reason = "#{response.return_message} (#{response.return_code})"
      begin
        raise CURL_ERRORS.fetch(response.timed_out? ? :operation_timedout : response.return_code, SocketError), reason
      rescue StandardError
        if response.timed_out?
          raise APITimeoutError, "Could not reach #{url}: no answer within #{timeout} s"
        end

        raise APIConnectionError, "Could not reach #{url}: #{reason}"
      end
    end

    # The model of a 2xx answer; SendlineError `invalid_response` when the answer is not that JSON.
    def parse_answer(response, return_type)
      body = response.body.to_s
      return body if return_type == 'String' # a text answer (an import's errors as CSV)

      content_type = response.headers['Content-Type'] || 'application/json'
      unless json_mime?(content_type) && !body.strip.empty?
        raise invalid_response(response, "the answer is not JSON (#{content_type.empty? ? 'no Content-Type' : content_type})")
      end

      begin
        data = JSON.parse(body, symbolize_names: true)
      rescue JSON::ParserError
        raise invalid_response(response, 'the answer is not JSON')
      end
      if return_type !~ /\A(Array|Hash)</ && Sendline.const_defined?(return_type, false) && !data.is_a?(Hash)
        raise invalid_response(response, "the answer is not a #{return_type} object")
      end

      convert_to_type(data, return_type)
    rescue SendlineError
      raise
    rescue StandardError
      raise invalid_response(response, "the answer is not a #{return_type}")
    end

    def invalid_response(response, detail)
      SendlineError.new("#{response.code}: #{detail}", status: response.code, code: 'invalid_response',
                                                       request_id: response.headers['X-Request-Id'])
    end

    # Times go as RFC 3339; a plain Date (not a DateTime) where a date-time is expected is that day
    # at 00:00:00Z (the API has no date-only field).
    def with_iso8601_times(value)
      return "#{value.iso8601}T00:00:00Z" if value.is_a?(Date) && !value.is_a?(DateTime)

      super
    end

    # Seconds to wait before the next attempt, or nil when this error is not retried.
    def retry_delay(error, attempt)
      return backoff(attempt) if error.is_a?(APIConnectionError)
      return nil unless retryable?(error)

      after = error.retry_after
      return nil if after && after > RETRY_AFTER_CAP

      after || backoff(attempt)
    end

    def retryable?(error)
      status = error.status
      return false if status.nil?

      status == 408 || status == 429 || status >= 500 || (status == 409 && error.code == 'idempotency_key_in_use')
    end

    # Exponential backoff with full jitter.
    def backoff(attempt)
      rand * [BACKOFF_BASE * (2**attempt), BACKOFF_CAP].min
    end
  end
end
