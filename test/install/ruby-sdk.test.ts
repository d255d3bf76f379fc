/**
 * The Ruby SDK as users get it: its RSpec unit tests (real loopback servers), then `gem build` →
 * `gem install` into a scratch GEM_HOME outside the repository → the README's quick-start, as
 * written, against a live server. RubyGems is not reachable: the gem's one dependency, typhoeus,
 * is Debian's `ruby-typhoeus`, which RubyGems sees as installed.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContractEnvironment, type ContractEnvironment } from '../contract/harness.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SDK = path.join(ROOT, 'sdk/ruby');

/** The environment of a user's shell: no RUBYLIB pointing into the repository. */
function userEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.RUBYLIB;
  delete env.GEM_PATH;
  return env;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

async function ok(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  const { code, output } = await run(command, args, cwd, env);
  expect(code, `${command} ${args.join(' ')}\n${output}`).toBe(0);
  return output;
}

/** The files a built gem packs. */
async function packed(gem: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const yaml = await ok('gem', ['specification', gem, 'files'], path.dirname(gem), env);
  return yaml
    .split('\n')
    .filter((line) => line.startsWith('- '))
    .map((line) => line.slice(2).trim());
}

describe('Ruby SDK', () => {
  let server: ContractEnvironment;
  beforeAll(async () => {
    server = await startContractEnvironment();
  });
  afterAll(() => server?.stop());

  it('passes its RSpec unit tests against loopback servers', async () => {
    const { code, output } = await run('rspec', ['--no-color', 'spec'], SDK, { ...process.env, RUBYLIB: path.join(SDK, 'lib') });
    expect(code, output).toBe(0);
  }, 120_000);

  it('builds with gem build, installs with gem install and runs the README quick-start', async () => {
    const scratch = mkdtempSync(path.join(tmpdir(), 'sendline-ruby-'));
    const env = userEnv({ GEM_HOME: path.join(scratch, 'gems'), HOME: scratch });

    // Twice in the gem's own folder (the first gem must not end up in the second), then from elsewhere.
    const source = path.join(scratch, 'source');
    cpSync(SDK, source, { recursive: true });
    await ok('gem', ['build', 'sendline.gemspec'], source, env);
    await ok('gem', ['build', 'sendline.gemspec'], source, env);
    const gem = path.join(scratch, 'sendline-0.1.0.gem');
    await ok('gem', ['build', path.join(source, 'sendline.gemspec'), '--output', gem], scratch, env);
    const files = await packed(gem, env);
    expect(await packed(path.join(source, 'sendline-0.1.0.gem'), env)).toEqual(files);
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'sendline.gemspec', 'lib/sendline.rb', 'lib/sendline/client.rb']));
    expect(files.filter((file) => !/^lib\/.*\.rb$/.test(file))).toEqual(['LICENSE', 'README.md', 'sendline.gemspec']);

    await ok('gem', ['install', '--local', '--no-document', gem], scratch, env);

    const app = path.join(scratch, 'app');
    mkdirSync(app);
    const where = await ok('ruby', ['-e', "require 'sendline'; puts Gem.loaded_specs.fetch('sendline').full_gem_path"], app, env);
    expect(where.trim()).toBe(path.join(scratch, 'gems/gems/sendline-0.1.0'));

    const readme = readFileSync(path.join(SDK, 'README.md'), 'utf8');
    const quickstart = /## Quick start[\s\S]*?```ruby\n([\s\S]*?)```/.exec(readme)![1];
    writeFileSync(path.join(app, 'quickstart.rb'), quickstart);
    const output = await ok('ruby', ['quickstart.rb'], app, { ...env, ...(await server.quickstart()), SENDLINE_BASE_URL: server.baseUrl });
    expect(output).toMatch(/^ada exists: true\nada@example\.com\nimported 1\nsent \d+\nwebhook\.test\n$/);
  }, 180_000);
});
