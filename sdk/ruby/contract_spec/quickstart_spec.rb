# Runs the quick-start of README.md against the live server, so it cannot rot.
RSpec.describe 'README quick-start' do
  it 'runs' do
    readme = File.read(File.expand_path('../README.md', __dir__))
    code = readme[/```ruby\n(.*?)```/m, 1]
    expect { eval(code, TOPLEVEL_BINDING.dup, 'README.md') }.to output(/sent \d+, unique opens \d+\n404 not_found\nwebhook.test/).to_stdout
  end
end
