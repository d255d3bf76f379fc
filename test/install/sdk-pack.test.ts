/**
 * `npm run sdk:pack`: the four SDK packages in one folder, as a release attaches them and as the
 * READMEs tell users to install them until they are published: each installed from its file
 * into a scratch project outside the repository (no registry but npm's, for the Node SDK's one
 * dependency), then loaded from there.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const exec = promisify(execFile);
const VERSION = '0.1.0';
const ARTIFACTS = [
  `sendline-${VERSION}-py3-none-any.whl`,
  `sendline-${VERSION}.gem`,
  `sendline-${VERSION}.tar.gz`,
  `sendline-sdk-${VERSION}.tgz`,
  `sendline-sendline-${VERSION}.zip`,
];

/** A user's shell: none of the repository's settings, npm's cache kept. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^(npm_|PYTHONPATH$|VIRTUAL_ENV$|RUBYLIB$|GEM_PATH$)/i.test(key) || /^npm_config_(cache|userconfig|registry)$/i.test(key),
    ),
  );
  return { ...env, ...extra };
}
const run = async (command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = userEnv()) =>
  (await exec(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 })).stdout;

/** A Debian package's upstream version: `2.4.5-1+deb12u1` → `2.4.5`. */
async function debianVersion(pkg: string): Promise<string> {
  const { stdout } = await exec('dpkg-query', ['-W', '-f=${Version}', pkg]);
  return stdout.replace(/^\d+:/, '').replace(/[-+~].*$/, '');
}

let scratch: string;
let dist: string;
let ignoredBefore: string[];
/** The files under sdk/ that git ignores: where a build would leave its output. */
const ignoredInSdk = async () => (await run('git', ['status', '--porcelain', '--ignored', 'sdk'], ROOT)).split('\n').filter((line) => line.startsWith('!!'));
beforeAll(async () => {
  ignoredBefore = await ignoredInSdk();
  scratch = mkdtempSync(path.join(tmpdir(), 'sendline-sdk-pack-'));
  dist = path.join(scratch, 'dist');
  await run('npm', ['run', '--silent', 'sdk:pack', '--', dist], ROOT, process.env);
}, 300_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('npm run sdk:pack', () => {
  it('writes the four packages, and only them, to the folder given', () => {
    expect(readdirSync(dist).sort()).toEqual(ARTIFACTS);
  });

  it('writes into no folder of the repository', async () => {
    expect(await ignoredInSdk()).toEqual(ignoredBefore);
  });

  it('makes a wheel pip installs', async () => {
    await run(`${ROOT}/.venv/bin/python`, ['-m', 'venv', 'venv'], scratch);
    const python = path.join(scratch, 'venv/bin/python');
    await run(
      python,
      [
        '-m',
        'pip',
        'install',
        '-q',
        '--disable-pip-version-check',
        '--no-index',
        '--find-links',
        `${ROOT}/.cache/python-wheels`,
        path.join(dist, ARTIFACTS[0]),
      ],
      scratch,
    );
    const loaded = await run(python, ['-c', 'import sendline; print(sendline.__file__); print(sendline.Sendline(api_key="sl_x").base_url)'], scratch);
    expect(loaded).toBe(
      `${scratch}/venv/lib/${loaded.split('/venv/lib/')[1].split('/')[0]}/site-packages/sendline/__init__.py\nhttp://localhost:3000/api/v1\n`,
    );
  }, 120_000);

  it('makes a tarball npm installs', async () => {
    const project = path.join(scratch, 'node-app');
    mkdirSync(project);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(dist, ARTIFACTS[3])], project);
    const loaded = await run(
      process.execPath,
      ['-e', "const { Sendline } = require('@sendline/sdk'); console.log(require.resolve('@sendline/sdk'), new Sendline({ apiKey: 'sl_x' }).baseUrl)"],
      project,
    );
    expect(loaded).toBe(`${project}/node_modules/@sendline/sdk/dist/cjs/index.js http://localhost:3000/api/v1\n`);
  }, 120_000);

  it('makes a gem gem installs', async () => {
    const env = userEnv({ GEM_HOME: path.join(scratch, 'gems'), HOME: scratch });
    await run('gem', ['install', '--local', '--no-document', path.join(dist, ARTIFACTS[1])], scratch, env);
    const loaded = await run('ruby', ['-e', "require 'sendline'; puts Gem.loaded_specs.fetch('sendline').full_gem_path"], scratch, env);
    expect(loaded).toBe(`${scratch}/gems/gems/sendline-${VERSION}\n`);
  }, 120_000);

  it('makes a zip Composer installs from an artifact repository', async () => {
    const app = path.join(scratch, 'php-app');
    mkdirSync(app);
    // Packagist is out of reach: Guzzle comes from Debian's files, as in php-sdk.test.ts.
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
          { type: 'artifact', url: dist },
          debian('guzzlehttp/guzzle', await debianVersion('php-guzzlehttp-guzzle'), '/usr/share/php/GuzzleHttp'),
          debian('guzzlehttp/psr7', await debianVersion('php-guzzlehttp-psr7'), '/usr/share/php/GuzzleHttp/Psr7'),
        ],
      }),
    );
    const env = userEnv({ COMPOSER_HOME: path.join(app, '.composer'), COMPOSER_DISABLE_NETWORK: '1' });
    const installed = await exec('composer', ['require', '--no-interaction', '--no-progress', 'sendline/sendline:^0.1'], { cwd: app, env });
    expect(installed.stdout + installed.stderr).toContain(`Installing sendline/sendline (${VERSION})`);
    const loaded = await run(
      'php',
      [
        '-r',
        "require 'vendor/autoload.php'; echo (new ReflectionClass(Sendline\\Sendline::class))->getFileName(), ' ', (new Sendline\\Sendline(api_key: 'sl_x'))->baseUrl();",
      ],
      app,
      env,
    );
    expect(loaded).toBe(`${app}/vendor/sendline/sendline/lib/Sendline.php http://localhost:3000/api/v1`);
  }, 120_000);
});
