<?php
// The shared contract scenarios (test/contract/scenarios) through the PHP SDK.
// Operation ids map to SDK calls by rule: `Contacts_create` is `Sendline\Api\ContactsApi::create`
// (names PHP reserves get the generator's `call` prefix: `list` is `callList`).
// Steps with `client` go through the hand-written client instead (`contacts.import_csv` is
// `$client->contacts->importCsv()`), and `webhook` steps through Sendline\Webhook.
// Run by test/contract/other-sdks.test.ts against a live server (SENDLINE_BASE_URL).

use PHPUnit\Framework\TestCase;
use Sendline\ApiException;
use Sendline\Client\Paginator;
use Sendline\Configuration;
use Sendline\Errors\SendlineError;
use Sendline\ObjectSerializer;
use Sendline\Sendline;
use Sendline\Webhook;

final class ScenariosTest extends TestCase
{
    private Configuration $config;
    private ?Sendline $client = null;

    public static function scenarios(): array
    {
        $files = glob(__DIR__ . '/../../../test/contract/scenarios/*.json');
        sort($files);
        $cases = [];
        foreach ($files as $file) {
            $cases[basename($file)] = [$file];
        }
        return $cases;
    }

    private static function interpolate(mixed $value, array $vars): mixed
    {
        if (is_string($value)) {
            if (preg_match('/^\{\{(\w+)\}\}$/', $value, $m)) {
                return $vars[$m[1]] ?? null;
            }
            return preg_replace_callback('/\{\{(\w+)\}\}/', fn ($m) => (string) ($vars[$m[1]] ?? ''), $value);
        }
        if (is_array($value)) {
            return array_map(fn ($v) => self::interpolate($v, $vars), $value);
        }
        return $value;
    }

    private static function dig(mixed $value, string $path): mixed
    {
        foreach (explode('.', $path) as $key) {
            if (!is_array($value)) {
                return null;
            }
            $value = $value[array_is_list($value) ? (int) $key : $key] ?? null;
        }
        return $value;
    }

    private static function mismatch(mixed $actual, mixed $expected, string $at = '$'): ?string
    {
        if (is_array($expected) && array_is_list($expected) && $expected !== []) {
            if (!is_array($actual) || !array_is_list($actual) || count($actual) !== count($expected)) {
                return "$at: expected an array of " . count($expected) . ', got ' . json_encode($actual);
            }
            foreach ($expected as $i => $item) {
                if ($problem = self::mismatch($actual[$i], $item, "{$at}[$i]")) {
                    return $problem;
                }
            }
            return null;
        }
        if ($expected === []) {
            return $actual === [] ? null : "$at: expected an empty array, got " . json_encode($actual);
        }
        if (is_array($expected)) {
            if (!is_array($actual)) {
                return "$at: expected an object, got " . json_encode($actual);
            }
            foreach ($expected as $key => $item) {
                if ($problem = self::mismatch($actual[$key] ?? null, $item, "$at.$key")) {
                    return $problem;
                }
            }
            return null;
        }
        return $actual === $expected ? null : "$at: expected " . json_encode($expected) . ', got ' . json_encode($actual);
    }

    private static function typeOf(mixed $value): string
    {
        return match (true) {
            $value === null => 'null',
            is_bool($value) => 'boolean',
            is_int($value) => 'integer',
            is_float($value) => 'number',
            is_string($value) => 'string',
            is_array($value) && array_is_list($value) => 'array',
            default => 'object',
        };
    }

    private function authenticate(?array $auth): void
    {
        $this->config = (new Configuration())->setHost(getenv('SENDLINE_BASE_URL'));
        if ($auth['bearer'] ?? null) {
            $this->config->setAccessToken($auth['bearer']);
        }
        if ($auth['api_key'] ?? null) {
            $this->config->setApiKey('X-API-Key', $auth['api_key']);
        }
        $credential = $auth['api_key'] ?? $auth['bearer'] ?? null;
        $this->client = $credential ? new Sendline(api_key: $credential, base_url: getenv('SENDLINE_BASE_URL')) : null;
    }

    /** The server answers a repeated Idempotency-Key with the stored answer only once it supports the header. */
    private static function serverHasIdempotency(): bool
    {
        return str_contains((string) file_get_contents(__DIR__ . '/../../../generated/openapi.yaml'), 'Idempotency-Key');
    }

    private static function camel(string $name): string
    {
        return lcfirst(str_replace('_', '', ucwords($name, '_')));
    }

    /** `{"$date": "…"}` becomes a DateTimeImmutable. */
    private static function natives(mixed $value): mixed
    {
        if (is_array($value) && array_keys($value) === ['$date']) {
            return new DateTimeImmutable($value['$date']);
        }
        return is_array($value) ? array_map(fn ($v) => self::natives($v), $value) : $value;
    }

    /** A model, a generic event or a list of them, as the JSON they stand for. */
    private static function plain(mixed $value): mixed
    {
        return json_decode(json_encode($value), true);
    }

    /** A `client` step: the call through the idiomatic client; answers [result, error]. */
    private function clientCall(array $step, array $vars): array
    {
        [$resource, $method] = explode('.', $step['client']);
        $args = self::natives(self::interpolate($step['args'] ?? [], $vars));
        if (isset($step['idempotency_key'])) {
            $args['idempotency_key'] = self::interpolate($step['idempotency_key'], $vars);
        }
        $resource = $this->client->{self::camel($resource)};
        try {
            if ($step['client'] === 'contacts.import_csv') {
                $source = array_key_exists('path', $args) ? new \SplFileInfo($args['path']) : $args['csv'];
                unset($args['csv'], $args['path']);
                $result = $resource->importCsv($source, ...$args);
                if ($step['wait'] ?? false) {
                    $result = $this->client->contactImports->wait($result->getId(), timeout: 20, interval: 0.1);
                }
            } elseif (array_key_exists('id', $args)) {
                $id = $args['id'];
                unset($args['id']);
                $result = $resource->{self::camel($method)}($id, ...$args);
            } else {
                $result = $resource->{self::camel($method)}(...$args);
            }
            if ($result instanceof Paginator) {
                $result = iterator_to_array($result, false);
            }
            return [$result, null];
        } catch (SendlineError $error) {
            return [null, $error];
        }
    }

    /** A `webhook` step: signs the event, alters it when asked, verifies it as delivered; answers [event, error]. */
    private static function webhookCall(array $webhook): array
    {
        $verifier = new Webhook($webhook['secret']);
        $payload = json_encode($webhook['event'], JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES);
        $timestamp = time();
        $signature = $verifier->sign($webhook['event']['id'], $timestamp, $payload);
        if ($webhook['tamper'] ?? false) {
            $payload = substr_replace($payload, ' ', -1, 0);
        }
        $headers = ['Webhook-Id' => [$webhook['event']['id']], 'Webhook-Timestamp' => [(string) $timestamp], 'Webhook-Signature' => [$signature]];
        try {
            return [$verifier->verify($payload, $headers), null];
        } catch (SendlineError $error) {
            return [null, $error];
        }
    }

    private function checkError(?SendlineError $error, array $expected, string $where, mixed $result): void
    {
        $this->assertNotNull($error, "$where: expected {$expected['class']}, got " . json_encode(self::plain($result)));
        $this->assertSame('Sendline\\Errors\\' . $expected['class'], get_class($error), "$where: {$error->getMessage()}");
        if (isset($expected['status'])) {
            $this->assertSame($expected['status'], $error->status, $where);
        }
        if (isset($expected['code'])) {
            $this->assertSame($expected['code'], $error->code, $where);
            $this->assertSame($expected['code'], $error->getCode(), $where);
        }
        if (isset($expected['existing_id'])) {
            $this->assertSame($expected['existing_id'], $error->existingId, $where);
        }
        if (isset($expected['pointer'])) {
            $this->assertContains($expected['pointer'], array_map(fn ($e) => $e->getPointer(), $error->errors), $where);
        }
    }

    private function call(string $op, ?array $path, ?array $query, mixed $body): array
    {
        [$resource, $method] = explode('_', $op, 2);
        $class = "Sendline\\Api\\{$resource}Api";
        $api = new $class(null, $this->config);
        $name = method_exists($api, "{$method}WithHttpInfo") ? "{$method}WithHttpInfo" : 'call' . ucfirst($method) . 'WithHttpInfo';
        $given = array_merge($path ?? [], $query ?? []);
        $args = [];
        foreach ((new ReflectionMethod($api, $name))->getParameters() as $parameter) {
            $param = $parameter->getName();
            if ($param === 'contentType') {
                break;
            }
            if (array_key_exists($param, $given)) {
                $args[] = $given[$param];
            } elseif ($body !== null && !$parameter->isOptional()) {
                $model = 'Sendline\\Model\\' . str_replace('_', '', ucwords($param, '_'));
                $args[] = ObjectSerializer::deserialize(json_decode(json_encode($body)), $model);
            } else {
                $args[] = $parameter->isOptional() ? $parameter->getDefaultValue() : null;
            }
        }
        try {
            [$data, $status] = $api->$name(...$args);
        } catch (ApiException $error) {
            $text = (string) $error->getResponseBody();
            return [$error->getCode(), $text === '' ? null : json_decode($text, true)];
        }
        if ($data === null || is_string($data)) {
            return [$status, $data];
        }
        return [$status, json_decode(json_encode(ObjectSerializer::sanitizeForSerialization($data)), true)];
    }

    /** @dataProvider scenarios */
    public function testScenario(string $file): void
    {
        $scenario = json_decode(file_get_contents($file), true);
        $vars = ['unique' => bin2hex(random_bytes(4)), 'webhook_url' => getenv('SENDLINE_WEBHOOK_URL') ?: ''];
        $this->authenticate(null);
        $usedKeys = [];
        $skipped = [];
        foreach ($scenario['steps'] as $index => $step) {
            $where = basename($file) . ' step ' . ($index + 1) . ' (' . ($step['op'] ?? $step['client'] ?? (isset($step['webhook']) ? 'webhook' : 'auth')) . ')';
            if (array_key_exists('auth', $step)) {
                $this->authenticate(self::interpolate($step['auth'], $vars));
                continue;
            }
            if (isset($step['client']) || isset($step['webhook'])) {
                $key = isset($step['idempotency_key']) ? self::interpolate($step['idempotency_key'], $vars) : null;
                if ($key !== null && isset($usedKeys[$key]) && !self::serverHasIdempotency()) {
                    $skipped[] = $where;
                    continue;
                }
                if ($key !== null) {
                    $usedKeys[$key] = true;
                }
                [$result, $error] = isset($step['webhook']) ? self::webhookCall(self::interpolate($step['webhook'], $vars)) : $this->clientCall($step, $vars);
                if (isset($step['error'])) {
                    $this->checkError($error, self::interpolate($step['error'], $vars), $where, $result);
                    continue;
                }
                $this->assertNull($error, "$where: " . ($error?->getMessage() ?? ''));
                $body = self::plain($result);
                if (isset($step['collect'])) {
                    $body = array_map(fn ($item) => $item[$step['collect']] ?? null, $body);
                }
                if (isset($step['expect'])) {
                    $this->assertNull(self::mismatch($body, self::interpolate($step['expect'], $vars)), "$where: " . self::mismatch($body, self::interpolate($step['expect'], $vars)));
                }
                foreach ($step['capture'] ?? [] as $name => $path) {
                    $vars[$name] = self::dig($body, $path);
                }
                continue;
            }
            $started = microtime(true);
            $attempts = 0;
            while (true) {
                $attempts++;
                [$status, $body] = $this->call($step['op'], self::interpolate($step['path'] ?? null, $vars), self::interpolate($step['query'] ?? null, $vars), self::interpolate($step['body'] ?? null, $vars));
                if ($status !== $step['status'] && $attempts < ($step['attempts'] ?? 1)) {
                    continue;
                }
                if (!isset($step['until']) || self::mismatch($body, self::interpolate($step['until'], $vars)) === null) {
                    break;
                }
                $this->assertLessThan(20, microtime(true) - $started, "$where: never reached the expected state: " . json_encode($body));
                usleep(100_000);
            }
            $this->assertSame($step['status'], $status, "$where: " . json_encode($body));
            if (isset($step['problem'])) {
                $this->assertNull(self::mismatch($body, self::interpolate($step['problem'], $vars)), $where);
                $this->assertIsString($body['title'] ?? null, $where);
            }
            if (isset($step['expect'])) {
                $this->assertNull(self::mismatch($body, self::interpolate($step['expect'], $vars)), $where);
            }
            if (isset($step['contains'])) {
                $this->assertStringContainsString($step['contains'], (string) $body, $where);
            }
            foreach ($step['types'] ?? [] as $path => $wanted) {
                $actual = self::typeOf(self::dig($body, $path));
                $this->assertTrue($actual === $wanted || ($wanted === 'number' && $actual === 'integer') || ($wanted === 'object' && $actual === 'array' && self::dig($body, $path) === []), "$where: $path is $actual, not $wanted");
            }
            foreach ($step['capture'] ?? [] as $name => $path) {
                $vars[$name] = self::dig($body, $path);
            }
        }
        if ($skipped !== []) {
            $this->markTestIncomplete('the server does not take Idempotency-Key yet; skipped ' . implode(', ', $skipped));
        }
    }
}
