# The `sendline` gem. Hand-written (kept across regeneration): the file list is explicit (the
# library, README.md, LICENSE; never a built gem), so `gem build` works twice in a row.
require_relative 'lib/sendline/version'

# `gem build path/to/sendline.gemspec` packs files relative to the working directory (RubyGems 3.3):
# build from this folder, wherever it is started, so that no other tree is ever packed.
Dir.chdir(__dir__) if defined?(Gem::Commands::BuildCommand) && File.expand_path(Dir.pwd) != File.expand_path(__dir__)

Gem::Specification.new do |s|
  s.name        = 'sendline'
  s.version     = Sendline::VERSION
  s.platform    = Gem::Platform::RUBY
  s.authors     = ['The Sendline authors']
  s.email       = ['sdk@sendline.dev']
  s.homepage    = 'https://github.com/sendline/sendline'
  s.summary     = 'Ruby client for the Sendline email marketing API'
  s.description = 'The official Ruby client for Sendline, the self-hosted email marketing service: ' \
                  'contacts, CSV imports, campaigns, analytics and webhook verification, with typed errors, ' \
                  'auto-pagination, timeouts, retries and idempotency keys.'
  s.license     = 'MIT'
  s.required_ruby_version = '>= 3.1'
  s.metadata = {
    'homepage_uri' => 'https://github.com/sendline/sendline',
    'source_code_uri' => 'https://github.com/sendline/sendline/tree/main/sdk/ruby',
    'bug_tracker_uri' => 'https://github.com/sendline/sendline/issues',
    'documentation_uri' => 'https://github.com/sendline/sendline/tree/main/sdk/ruby#readme',
    'rubygems_mfa_required' => 'true'
  }

  s.add_runtime_dependency 'typhoeus', '~> 1.4'

  s.files = Dir.glob('lib/**/*.rb', base: __dir__).sort + %w[LICENSE README.md sendline.gemspec]
  s.require_paths = ['lib']
end
