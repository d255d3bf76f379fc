/**
 * The four SDKs' webhook verifiers held to the Standard Webhooks reference library: deliveries
 * signed by it, some altered, must be accepted by each SDK exactly when the library accepts them.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../server/webhooks/signing.ts';
import { Webhook as SendlineWebhook, type WebhookHeaders } from '../../sdk/node/src/index.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

interface Delivery {
  name: string;
  secret: string;
  headers: Record<string, string>;
  body: string;
}

function deliveries(): Delivery[] {
  const secret = newWebhookSecret();
  const other = newWebhookSecret();
  const id = 'evt_0VbnTestVerifiers00001';
  const body = JSON.stringify({
    id,
    type: 'webhook.test',
    created_at: new Date().toISOString(),
    account_id: 'acc_1',
    data: { webhook_id: 'wh_1', message: 'Grüße 🎉' },
  });
  const now = new Date();
  const sign = (key: string, at = now, payload = body) => new Webhook(key).sign(id, at, payload);
  const headers = (signature: string, at = now) => ({
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  });
  const old = new Date(now.getTime() - 10 * 60_000);
  return [
    { name: 'signed', secret, headers: headers(sign(secret)), body },
    { name: 'one of two signatures, as during a rotation', secret, headers: headers(`${sign(other)} ${sign(secret)}`), body },
    { name: 'another secret', secret, headers: headers(sign(other)), body },
    { name: 'altered body', secret, headers: headers(sign(secret)), body: body.replace('wh_1', 'wh_2') },
    { name: 'ten minutes old', secret, headers: headers(sign(secret, old), old), body },
    {
      name: 'a timestamp other than the signed one',
      secret,
      headers: { ...headers(sign(secret)), 'webhook-timestamp': String(Math.floor(now.getTime() / 1000) + 1) },
      body,
    },
    { name: 'an unknown signature version', secret, headers: headers(sign(secret).replace(/^v1,/, 'v2,')), body },
    { name: 'no signature', secret, headers: { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)) }, body },
  ];
}

const accepts = (verify: () => unknown) => {
  try {
    verify();
    return true;
  } catch {
    return false;
  }
};

/** Each language reads the deliveries as JSON on stdin and prints one line per delivery: accepted or rejected. */
const RUNNERS: Record<string, { command: string; args: string[]; env?: Record<string, string> }> = {
  python: {
    command: `${ROOT}/.venv/bin/python`,
    args: [
      '-c',
      `import json, sys
from sendline.webhooks import Webhook, WebhookVerificationError
for d in json.load(sys.stdin):
    try:
        Webhook(d["secret"]).verify(d["body"].encode(), d["headers"]); print("accepted")
    except WebhookVerificationError:
        print("rejected")`,
    ],
    env: { PYTHONPATH: `${ROOT}/sdk/python` },
  },
  php: {
    command: 'php',
    args: [
      '-r',
      `require '${ROOT}/sdk/php/contract-tests/bootstrap.php';
foreach (json_decode(stream_get_contents(STDIN), true) as $d) {
  $accepts = function (array $headers) use ($d): bool {
    try { (new Sendline\\Webhook($d['secret']))->verify($d['body'], $headers); return true; }
    catch (Sendline\\Errors\\WebhookVerificationError $e) { return false; }
  };
  // As a plain array, and as PSR-7's getHeaders() gives them: capitalised names, lists of values.
  $psr7 = [];
  foreach ($d['headers'] as $name => $value) { $psr7[ucwords($name, '-')] = [$value]; }
  $plain = $accepts($d['headers']);
  echo $plain !== $accepts($psr7) ? "inconsistent\\n" : ($plain ? "accepted\\n" : "rejected\\n");
}`,
    ],
  },
  ruby: {
    command: 'ruby',
    args: [
      '-rjson',
      '-rsendline',
      '-e',
      `JSON.parse($stdin.read).each do |d|
  begin
    Sendline::Webhook.new(d['secret']).verify(d['body'], d['headers']); puts 'accepted'
  rescue Sendline::WebhookVerificationError
    puts 'rejected'
  end
end`,
    ],
    env: { RUBYLIB: `${ROOT}/sdk/ruby/lib` },
  },
};

describe('webhook verifiers against the Standard Webhooks reference library', () => {
  const cases = deliveries();
  const expected = cases.map((d) => (accepts(() => new Webhook(d.secret).verify(d.body, d.headers)) ? 'accepted' : 'rejected'));

  it('the reference library accepts the signed deliveries only', () => {
    expect(expected).toEqual(['accepted', 'accepted', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected']);
  });

  it('Node.js', () => {
    expect(cases.map((d) => (accepts(() => new SendlineWebhook(d.secret).verify(d.body, d.headers)) ? 'accepted' : 'rejected'))).toEqual(expected);
  });

  // As frameworks hand deliveries over: bytes, capitalised or array-valued headers, a Headers object.
  it.each<[string, (d: Delivery) => [string | Uint8Array, WebhookHeaders]]>([
    ['the body as a Buffer', (d: Delivery) => [Buffer.from(d.body), d.headers]],
    ['the body as a Uint8Array', (d: Delivery) => [new TextEncoder().encode(d.body), d.headers]],
    ['capitalised header keys', (d: Delivery) => [d.body, Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k.toUpperCase(), v]))]],
    ['array header values', (d: Delivery) => [d.body, Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k, [v]]))]],
    ['a Headers object', (d: Delivery) => [d.body, new Headers(d.headers)]],
  ])('Node.js, %s', (_, deliver) => {
    const verdicts = cases.map((d) => (accepts(() => new SendlineWebhook(d.secret).verify(...deliver(d))) ? 'accepted' : 'rejected'));
    expect(verdicts).toEqual(expected);
  });

  for (const [language, runner] of Object.entries(RUNNERS)) {
    it(language, async () => {
      const child = run(runner.command, runner.args, { env: { ...process.env, ...runner.env } });
      child.child.stdin!.end(JSON.stringify(cases));
      const { stdout } = await child;
      expect(stdout.trim().split('\n')).toEqual(expected);
    });
  }
});
