/**
 * The Python SDK as its users get it: its unit tests (pytest, loopback servers), then the wheel
 * `python -m build` makes, installed into a fresh virtualenv outside the repository (its
 * dependencies from the pinned wheels ensure-toolchains keeps), running the README's quick-start
 * as written against a live server, and a consumer program type-checked by `mypy --strict`.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContractEnvironment, type ContractEnvironment } from '../contract/harness.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DEV_PYTHON = `${ROOT}/.venv/bin/python`;
const WHEELS = `${ROOT}/.cache/python-wheels`;

interface Result {
  code: number | null;
  output: string;
  stdout: string;
}

function run(command: string, args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<Result> {
  return new Promise((resolve) => {
    // Not the repository's PYTHONPATH or virtualenv: only what the command is given.
    const { PYTHONPATH: _path, VIRTUAL_ENV: _venv, ...inherited } = process.env;
    const child = execFile(command, args, { cwd: options.cwd, env: { ...inherited, ...options.env }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}`, stdout }),
    );
    child.stdin?.end();
  });
}

describe('the Python SDK', () => {
  it('passes its unit tests against loopback servers', async () => {
    const { code, output } = await run(DEV_PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests'], {
      cwd: `${ROOT}/sdk/python`,
      env: { PYTHONPATH: `${ROOT}/sdk/python` },
    });
    expect(code, output).toBe(0);
  }, 120_000);

  it('types its hand-written modules strictly (mypy --strict)', async () => {
    const modules = ['__init__', '_client', '_deadline', '_errors', '_imports', '_pagination', '_params', '_resources', 'webhooks'].map(
      (m) => `sendline/${m}.py`,
    );
    const { code, output } = await run(DEV_PYTHON, ['-m', 'mypy', '--strict', '--follow-imports=silent', '--cache-dir=/dev/null', ...modules], {
      cwd: `${ROOT}/sdk/python`,
    });
    expect(code, output).toBe(0);
  }, 120_000);

  describe('installed from its wheel into a fresh virtualenv', () => {
    let env: ContractEnvironment;
    let dir: string;
    let python: string;

    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'sendline-python-'));
      // Built from a copy, as from a clean checkout: nothing is written into the repository.
      cpSync(`${ROOT}/sdk/python`, `${dir}/src`, { recursive: true, filter: (file) => !/(__pycache__|\.egg-info|\/build|\/dist)$/.test(file) });
      const built = await run(DEV_PYTHON, ['-m', 'build', '--no-isolation', '--outdir', `${dir}/dist`, `${dir}/src`], { cwd: dir });
      expect(built.code, built.output).toBe(0);
      const venv = await run(DEV_PYTHON, ['-m', 'venv', `${dir}/venv`], { cwd: dir });
      expect(venv.code, venv.output).toBe(0);
      python = `${dir}/venv/bin/python`;
      const wheel = readdirSync(`${dir}/dist`).find((f) => f.endsWith('.whl'));
      expect(wheel).toBe('sendline-0.1.0-py3-none-any.whl');
      const installed = await run(
        python,
        ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', '--no-index', '--find-links', WHEELS, `${dir}/dist/${wheel}`],
        { cwd: dir },
      );
      expect(installed.code, installed.output).toBe(0);
      env = await startContractEnvironment();
    }, 180_000);

    afterAll(async () => {
      await env?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('builds a wheel and an sdist with the published metadata', async () => {
      expect(readdirSync(`${dir}/dist`).sort()).toEqual(['sendline-0.1.0-py3-none-any.whl', 'sendline-0.1.0.tar.gz']);
      const { code, stdout, output } = await run(
        python,
        [
          '-c',
          'import importlib.metadata as m, json, sendline; d = m.metadata("sendline"); print(json.dumps({"file": sendline.__file__, "license": d["License-Expression"], "author": d["Author-email"], "requires": m.requires("sendline"), "typed": m.files("sendline") and any(str(f) == "sendline/py.typed" for f in m.files("sendline"))}))',
        ],
        { cwd: dir },
      );
      expect(code, output).toBe(0);
      const found = JSON.parse(stdout);
      expect(found.file.startsWith(`${dir}/venv/`)).toBe(true);
      expect(found).toMatchObject({ license: 'MIT', author: 'The Sendline authors <sdk@sendline.dev>', typed: true });
      expect(found.requires.sort()).toEqual(['pydantic<3,>=2.6', 'python-dateutil>=2.8.2', 'typing-extensions>=4.7.1', 'urllib3<3,>=2.1.0']);
    });

    it("runs the README's quick-start as written against a live server", async () => {
      const readme = readFileSync(`${ROOT}/sdk/python/README.md`, 'utf8');
      const quickstart = /## Quick start\n\n```python\n([\s\S]*?)```/.exec(readme)![1];
      writeFileSync(`${dir}/quickstart.py`, quickstart);
      const { code, stdout, output } = await run(python, ['quickstart.py'], {
        cwd: dir,
        env: { ...(await env.quickstart()), SENDLINE_BASE_URL: env.sendline.url },
      });
      expect(code, output).toBe(0);
      expect(stdout).toMatch(/^ada@example\.com\ngrace@example\.com\ncontact_exists True\nsent \d+, unique opens \d+\nwebhook\.test\n$/);
    }, 60_000);

    it('type-checks a consumer with mypy --strict, and rejects a wrong call', async () => {
      writeFileSync(`${dir}/consumer.py`, CONSUMER);
      writeFileSync(`${dir}/wrong.py`, WRONG);
      const mypy = (file: string) => run(DEV_PYTHON, ['-m', 'mypy', '--strict', '--no-incremental', '--python-executable', python, file], { cwd: dir });
      const good = await mypy('consumer.py');
      expect(good.code, good.output).toBe(0);
      const bad = await mypy('wrong.py');
      expect(bad.code, bad.output).toBe(1);
      expect(bad.output).toMatch(/wrong\.py:6: error: Missing positional argument "id"/);
      expect(bad.output).toMatch(/wrong\.py:7: error: "Contact" has no attribute "emial"/);
      expect(bad.output).toMatch(/wrong\.py:9: error: "RateLimitError" has no attribute "existing_id"/);
      expect(bad.output).toMatch(/wrong\.py:4: error: Unexpected keyword argument "frist_name"/);
      expect(bad.output).toMatch(/Found 4 errors in 1 file/);
    }, 120_000);
  });
});

const CONSUMER = `from datetime import datetime
from pathlib import Path
from typing import List, Optional

import sendline
from sendline.webhooks import UnknownEvent, Webhook


def run() -> None:
    client = sendline.Sendline(api_key="sl_test", base_url="https://mail.example.com", timeout=10, max_retries=3)
    ada: sendline.Contact = client.contacts.create(email="ada@example.com", tags=["vip"], idempotency_key="k1")
    emails: List[str] = [c.email for c in client.contacts.list(tag="vip", created_after=datetime(2026, 1, 1))]
    page = client.contacts.list(limit=10).first_page()
    cursor: Optional[str] = page.next_cursor
    try:
        client.contacts.get(ada.id, timeout=5)
    except sendline.ConflictError as error:
        existing: Optional[str] = error.existing_id
    except sendline.ValidationError as error:
        pointers = [e.pointer for e in error.errors]
    except sendline.RateLimitError as error:
        wait: Optional[float] = error.retry_after
    except sendline.APITimeoutError:
        pass
    except sendline.SendlineError as error:
        status: Optional[int] = error.status
    imported = client.contacts.import_csv(Path("contacts.csv"), mode="upsert", tags=["x"], mapping={"E-mail": "email"})
    finished: sendline.ContactImport = client.contact_imports.wait(imported.id, timeout=60)
    created: datetime = finished.created_at
    campaign = client.campaigns.create(name="n", subject="s", from_email="a@example.com", content="<p>hi</p>")
    client.campaigns.send(campaign.id, scheduled_at=datetime(2026, 12, 1, 9, 0))
    event = Webhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").verify(b"{}", {"Webhook-Id": ["evt_1"]})
    kind: str = event.type
    if isinstance(event, sendline.ContactCreatedEvent):
        print(event.data)
    elif isinstance(event, UnknownEvent):
        print(event.data.get("anything"))
    print(emails, cursor, created, kind)
`;

const WRONG = `import sendline

client = sendline.Sendline(api_key="sl_test")
client.contacts.update("ct_1", frist_name="Ada")

client.contacts.get()
print(client.contacts.get("ct_1").emial)
try: client.contacts.get("ct_1")
except sendline.RateLimitError as error: print(error.existing_id)
`;
