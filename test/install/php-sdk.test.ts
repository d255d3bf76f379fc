/**
 * The PHP SDK (sdk/php): its unit tests against loopback servers, its packaging
 * (`composer validate --strict`), and an install as users make it — `composer require
 * sendline/sendline` in a new project outside the repository — whose README quick-start then
 * runs, as written, against a live server.
 *
 * Packagist is out of reach here (and in CI), so the scratch project turns it off and finds
 * every package locally: the SDK through a Composer `path` repository (copied, as an install
 * from Packagist would be), and Guzzle, which the SDK requires, as `package` repositories whose
 * files are Debian's (`php-guzzlehttp-guzzle`, `php-guzzlehttp-psr7`, installed by
 * scripts/ensure-toolchains.sh), autoloaded by Debian's own autoload.php.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContractEnvironment, type ContractEnvironment } from '../contract/harness.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SDK = path.join(ROOT, 'sdk/php');
const exec = promisify(execFile);

async function run(command: string, args: string[], options: { cwd: string; env?: Record<string, string> }) {
  try {
    const { stdout, stderr } = await exec(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, maxBuffer: 16 << 20 });
    return { code: 0, output: stdout + stderr, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr, stdout: failed.stdout };
  }
}

/** A Debian package's upstream version: `2.4.5-1+deb12u1` → `2.4.5`. */
async function debianVersion(pkg: string): Promise<string> {
  const { stdout } = await exec('dpkg-query', ['-W', '-f=${Version}', pkg]);
  return stdout.replace(/^\d+:/, '').replace(/[-+~].*$/, '');
}

describe('PHP SDK', () => {
  it('passes its unit tests (PHPUnit against loopback servers)', async () => {
    const { code, output } = await run('phpunit', ['--colors=never', '--do-not-cache-result', '-c', 'phpunit.xml'], { cwd: SDK });
    expect(code, output).toBe(0);
  }, 120_000);

  it('is a valid Composer package', async () => {
    const { code, output } = await run('composer', ['validate', '--strict', '--no-interaction'], { cwd: SDK, env: { COMPOSER_DISABLE_NETWORK: '1' } });
    expect(code, output).toBe(0);
    const composer = JSON.parse(readFileSync(path.join(SDK, 'composer.json'), 'utf8'));
    expect(composer).toMatchObject({ name: 'sendline/sendline', license: 'MIT', homepage: 'https://github.com/sendline/sendline' });
    expect(composer.authors).toEqual([expect.objectContaining({ name: 'The Sendline authors', email: 'sdk@sendline.dev' })]);
    expect(readFileSync(path.join(SDK, 'LICENSE'), 'utf8')).toContain('Copyright (c) 2026 The Sendline authors');
    expect(readFileSync(path.join(SDK, 'README.md'), 'utf8')).not.toMatch(/\.\.\//);
  });

  describe('installed with Composer', () => {
    let env: ContractEnvironment;
    beforeAll(async () => {
      env = await startContractEnvironment();
    });
    afterAll(() => env.stop());

    it('runs the README quick-start against a live server', async () => {
      const app = mkdtempSync(path.join(tmpdir(), 'sendline-php-app-'));
      const debian = (name: string, version: string, dir: string) => ({
        type: 'package',
        package: { name, version, dist: { type: 'path', url: dir }, autoload: { files: ['autoload.php'] } },
      });
      writeFileSync(
        path.join(app, 'composer.json'),
        JSON.stringify({
          name: 'example/newsletter',
          type: 'project',
          repositories: [
            { 'packagist.org': false },
            { type: 'path', url: SDK, options: { symlink: false, versions: { 'sendline/sendline': '0.1.0' } } },
            debian('guzzlehttp/guzzle', await debianVersion('php-guzzlehttp-guzzle'), '/usr/share/php/GuzzleHttp'),
            debian('guzzlehttp/psr7', await debianVersion('php-guzzlehttp-psr7'), '/usr/share/php/GuzzleHttp/Psr7'),
          ],
        }),
      );
      const composerEnv = { COMPOSER_HOME: path.join(app, '.composer'), COMPOSER_DISABLE_NETWORK: '1' };
      const install = await run('composer', ['require', '--no-interaction', '--no-progress', 'sendline/sendline:^0.1'], { cwd: app, env: composerEnv });
      expect(install.code, install.output).toBe(0);
      expect(install.output).toContain('Installing sendline/sendline (0.1.0)');

      const quickstart = /```php\n([\s\S]*?)```/.exec(readFileSync(path.join(SDK, 'README.md'), 'utf8'))![1];
      writeFileSync(path.join(app, 'quickstart.php'), quickstart);
      const { code, output } = await run('php', ['quickstart.php'], { cwd: app, env: { ...(await env.quickstart()), SENDLINE_BASE_URL: env.sendline.url } });
      expect(code, output).toBe(0);
      expect(output).toMatch(
        /^contact_exists, the existing contact is ct_\w+\nada@example\.com\nimport completed: 1 created\nsent \d+, unique opens \d+\n404 not_found\nwebhook\.test\n$/,
      );
    }, 120_000);
  });
});
