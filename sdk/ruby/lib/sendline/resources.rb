# The resource namespaces of Sendline::Client (client.contacts, client.campaigns, …). Each method is
# one generated operation (`Contacts_create` is `client.contacts.create`): path parameters
# positional, body fields and query parameters as keywords, the generated model back.
# Hand-written; kept across regeneration.
require 'tempfile'
require 'sendline/errors'
require 'sendline/pagination'

module Sendline
  module Resources
    # Options every method takes, besides the operation's own.
    CALL_OPTIONS = %i[idempotency_key timeout max_retries].freeze

    class Resource
      # Defines one method per operation of the generated API class (`call_send` becomes `send`).
      def self.operations_of(api_class)
        @api_class = api_class
        api_class.instance_methods(false).grep(/_with_http_info\z/).each do |generated|
          name = generated.to_s.delete_suffix('_with_http_info').delete_prefix('call_')
          define_method(name) { |*args, **kwargs| invoke(generated, args, kwargs) }
        end
      end

      class << self
        attr_reader :api_class
      end

      def initialize(transport)
        @api = self.class.api_class.new(transport)
      end

      def inspect
        "#<#{self.class.name}>"
      end

      private

      # `wait` of imports, exports and campaigns: `get(id)` every `interval` seconds until the
      # status is one of `final`; APITimeoutError naming the `kind`, the id and the last status
      # after `timeout` seconds.
      def wait_until_final(kind, id, final, timeout, interval)
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + timeout
        loop do
          found = get(id)
          status = found.status.to_s
          return found if final.include?(status)
          raise APITimeoutError, "#{kind} #{id} is still #{status} after #{timeout} s" if Process.clock_gettime(Process::CLOCK_MONOTONIC) + interval > deadline

          sleep interval
        end
      end

      def invoke(generated, args, kwargs)
        call = kwargs.slice(*CALL_OPTIONS).compact
        params = kwargs.reject { |key, _| CALL_OPTIONS.include?(key) }
        operation = Operation.of(@api.class, generated)
        positional, opts = operation.arguments(args, params)
        opts[:sendline] = call
        if operation.paginated?
          first_cursor = opts[:cursor]
          ListCursor.new { |cursor| @api.public_send(generated, *positional, opts.merge(cursor: cursor || first_cursor)).first }
        else
          @api.public_send(generated, *positional, opts).first
        end
      end
    end

    # What a generated operation takes, read from the generated method: its required parameters
    # (path parameters, then the body model) and the names of its options (query parameters, and
    # an optional body model such as `campaign_send_request`).
    class Operation
      @cache = {}

      def self.of(api_class, generated)
        @cache[[api_class, generated]] ||= new(api_class, generated)
      end

      def initialize(api_class, generated)
        method = api_class.instance_method(generated)
        required = method.parameters.select { |kind, _| kind == :req }.map(&:last)
        @body_param = required.find { |param| model?(param) }
        @path_params = required - [@body_param]
        @options = option_names(method)
        # Only the option the generated method sends as the body: a query option may share a model's name (`email`).
        @optional_body = (@options.find { |option| model?(option) && sent_as_body?(method, option) } unless @body_param)
        @options -= [@optional_body]
        @body_model = (@body_param || @optional_body) && Sendline.const_get(camelize(@body_param || @optional_body))
        # The generator escapes options Ruby reserves (`until` is read as `_until`).
        @renames = @options.select { |option| option.start_with?('_') }.to_h { |option| [option.to_s.delete_prefix('_').to_sym, option] }
        @name = "#{api_class.name.delete_prefix('Sendline::').delete_suffix('Api')}.#{generated.to_s.delete_suffix('_with_http_info')}"
      end

      def paginated?
        @options.include?(:cursor)
      end

      # [positional arguments of the generated method, its opts] from the caller's arguments.
      def arguments(args, params)
        path = args.first(@path_params.size)
        if path.size < @path_params.size
          raise ArgumentError, "#{@name} needs #{@path_params.join(', ')} (#{@path_params.size} positional argument(s))"
        end

        # An empty id would call another URL (the collection's): refused before any request.
        @path_params.zip(path).each do |name, value|
          next unless value.nil? || value.to_s.strip.empty?

          raise SendlineError.local_validation("path.#{name}", "#{name} must not be #{value.nil? ? 'nil' : 'empty'}")
        end

        rest = args.drop(@path_params.size)
        raise ArgumentError, "#{@name}: too many positional arguments" if rest.size > (@body_model ? 1 : 0)

        body_fields = @body_model ? params.select { |key, _| @body_model.attribute_map.key?(key) } : {}
        opts = params.reject { |key, _| body_fields.key?(key) }.transform_keys { |key| @renames.fetch(key, key) }
        unknown = opts.keys - @options
        raise ArgumentError, "#{@name} takes no #{unknown.join(', ')}" unless unknown.empty?

        body = rest.first || (build_body(body_fields) if @body_param || body_fields.any?)
        return [path + [body], opts] if @body_param

        opts[@optional_body] = body if body
        [path, opts]
      end

      private

      # The body model; the checks its setters make (lengths, counts, required fields) raise
      # ValidationError with the field's JSON pointer, as the server's 400 would.
      def build_body(fields)
        @body_model.new(fields)
      rescue ArgumentError => e
        field = e.message[/"(\w+)"/, 1] || e.message[/\A(\w+) cannot be nil/, 1]
        raise unless field && @body_model.attribute_map.key?(field.to_sym)

        raise SendlineError.local_validation("/#{@body_model.attribute_map[field.to_sym]}", e.message)
      end

      def model?(param)
        name = camelize(param)
        Sendline.const_defined?(name, false) && Sendline.const_get(name).respond_to?(:build_from_hash)
      end

      def camelize(param)
        param.to_s.split('_').map(&:capitalize).join
      end

      # The generated method reads each option as `opts[:'name']`.
      def sent_as_body?(method, option)
        file, line = method.source_location
        source = File.readlines(file)[(line - 1)..].join
        (source[/\A.*?\n    end\n/m] || source).include?("object_to_http_body(opts[:'#{option}'])")
      end

      def option_names(method)
        file, line = method.source_location
        source = File.readlines(file)[(line - 1)..].join
        body = source[/\A.*?\n    end\n/m] || source
        body.scan(/opts\[:'(\w+)'\]/).flatten.uniq.reject { |name| name.start_with?('debug_') }.map(&:to_sym)
      end
    end

    class Contacts < Resource
      operations_of ContactsApi

      # Imports a CSV as multipart, streamed from disk. source: a path (a String without a line
      # break, or a Pathname), CSV text (a String with a line break), or an open File/IO.
      # mapping: { 'E-mail' => 'email' } renames columns. Answers the ContactImport; follow it with
      # client.contact_imports.wait(import.id).
      def import_csv(source, mode: nil, tags: nil, mapping: nil, idempotency_key: nil, timeout: nil, max_retries: nil)
        with_file(source) do |file|
          form = {
            mode: mode&.to_s,
            tags: tags.is_a?(Array) ? tags.join(',') : tags,
            mapping: mapping.is_a?(Hash) ? mapping.map { |from, to| "#{from}:#{to}" }.join(',') : mapping,
            file: file
          }.compact
          call = { idempotency_key: idempotency_key, timeout: timeout, max_retries: max_retries }.compact
          data, = @api.api_client.call_api(:POST, '/contacts/import',
                                           header_params: { 'Content-Type' => 'multipart/form-data', 'Accept' => 'application/json' },
                                           form_params: form, return_type: 'ContactImport',
                                           auth_names: %w[ApiKeyAuth BearerAuth], sendline: call)
          data
        end
      end

      private

      # Yields a File curl can stream from: the caller's file, the file at a path (a Pathname
      # too, though it answers `read`), or a temporary copy of CSV text or of another IO (copied
      # in chunks, never whole into memory).
      def with_file(source)
        if source.is_a?(::File)
          yield source
        elsif (source.respond_to?(:read) && !source.respond_to?(:to_path)) || (source.is_a?(String) && source.match?(/[\r\n]/))
          Tempfile.create(%w[sendline-import .csv], binmode: true) do |copy|
            source.respond_to?(:read) ? IO.copy_stream(source, copy) : copy.write(source)
            copy.flush
            File.open(copy.path, 'rb') { |file| yield file }
          end
        else
          path = source.to_s
          begin
            raise Errno::EISDIR, path if File.directory?(path)

            file = File.open(path, 'rb')
          rescue SystemCallError => e
            # As every Sendline SDK says it: a ValidationError at `file`, naming the path and why.
            reason = e.message.delete_suffix(" - #{path}").delete_suffix(" @ rb_sysopen")
            raise SendlineError.local_validation('file', "cannot read the CSV file #{path}: #{reason}")
          end
          begin
            yield file
          ensure
            file.close
          end
        end
      end
    end

    class ContactImports < Resource
      operations_of ContactImportsApi

      # Polls the import every `interval` seconds until it is `completed` or `failed` and answers it;
      # APITimeoutError naming the import and its last status when it still runs after `timeout` seconds.
      def wait(id, timeout: 600, interval: 1)
        wait_until_final('import', id, %w[completed failed], timeout, interval)
      end
    end

    class Campaigns < Resource
      operations_of CampaignsApi

      # Polls the campaign every `interval` seconds until it is `completed`, `cancelled` or `failed`
      # and answers it; APITimeoutError naming it and its last status after `timeout` seconds (a
      # draft, scheduled or paused campaign stays as it is until someone acts).
      def wait(id, timeout: 600, interval: 1)
        wait_until_final('campaign', id, %w[completed cancelled failed], timeout, interval)
      end
    end

    class ApiKeys < Resource
      operations_of ApiKeysApi
    end

    class Webhooks < Resource
      operations_of WebhooksApi
    end

    class Events < Resource
      operations_of EventsApi
    end

    class Tracking < Resource
      operations_of TrackingApi
    end

    class Analytics < Resource
      operations_of AnalyticsApi
    end

    class Conversions < Resource
      operations_of ConversionsApi
    end

    class Payments < Resource
      operations_of PaymentsApi
    end

    class Users < Resource
      operations_of UsersApi
    end

    class Auth < Resource
      operations_of AuthApi
    end

    class CustomFields < Resource
      operations_of CustomFieldsApi
    end

    class Segments < Resource
      operations_of SegmentsApi
    end

    class Tags < Resource
      operations_of TagsApi
    end

    # Templates: an editable draft, numbered versions that `publish` freezes, render and test send.
    class Templates < Resource
      operations_of TemplatesApi
    end

    class Lists < Resource
      operations_of ListsApi
    end

    # A contact's lists: `client.contact_lists.list(contact_id)`.
    class ContactLists < Resource
      operations_of ContactListsApi
    end

    # Subscription from public forms, no credential needed: `client.public_lists.subscribe(public_id, email: …)`.
    class PublicLists < Resource
      operations_of PublicListsApi
    end

    # Transactional email: `send`, `batch`, `get`, `list`, `cancel`.
    # Each address (`from:`, `to:`, `cc:`, `bcc:`) is a string or `{ email:, name: }`, mixed as you like.
    class Emails < Resource
      operations_of EmailsApi
    end

    class Suppressions < Resource
      operations_of SuppressionsApi
    end

    class Topics < Resource
      operations_of TopicsApi
    end

    class ContactTopics < Resource
      operations_of ContactTopicsApi
    end

    class ContactExports < Resource
      operations_of ContactExportsApi

      # Polls the export every `interval` seconds until it is `completed` or `failed` and answers it;
      # APITimeoutError naming the export and its last status when it still runs after `timeout` seconds.
      def wait(id, timeout: 600, interval: 1)
        wait_until_final('export', id, %w[completed failed], timeout, interval)
      end
    end

    # The caller's account: `client.accounts.get`, `client.accounts.update(name: …, timezone: …)` (owners and admins).
    class Accounts < Resource
      operations_of AccountsApi
    end

    class Domains < Resource
      operations_of DomainsApi
    end

    class Automations < Resource
      operations_of AutomationsApi
    end

    class ContactAutomations < Resource
      operations_of ContactAutomationsApi
    end

    class ContactEvents < Resource
      operations_of ContactEventsApi
    end
  end
end
