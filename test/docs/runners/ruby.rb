# frozen_string_literal: true

# Runs the reference's Ruby samples (a JSON list of {id, source}), each with a binding of its own
# in this one process (the SDK from RUBYLIB); prints one JSON line per sample: id, ok, output,
# error. Run by test/docs/samples.test.ts.
require 'json'
require 'stringio'

samples = JSON.parse(File.read(ARGV.fetch(0)))
real = $stdout
samples.each do |sample|
  output = StringIO.new
  result = { id: sample['id'], ok: true }
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  begin
    $stdout = output
    Object.new.instance_eval { binding }.eval(sample['source'], "#{sample['id']}.rb")
  rescue Exception => e # rubocop:disable Lint/RescueException -- a sample's failure of any kind is reported
    result = { id: sample['id'], ok: false, error: "#{e.class}: #{e.message}\n#{e.backtrace&.first(5)&.join("\n")}" }
  ensure
    $stdout = real
  end
  result[:output] = output.string
  result[:ms] = ((Process.clock_gettime(Process::CLOCK_MONOTONIC) - started) * 1000).round
  real.puts JSON.generate(result)
  real.flush
end
