<?php
// The shared contract scenarios (test/contract/scenarios) through the PHP SDK.
// Operation ids map to SDK calls by rule: `Contacts_create` is `Sendline\Api\ContactsApi::create`
// (names PHP reserves get the generator's `call` prefix: `list` is `callList`).
// Run by test/contract/other-sdks.test.ts against a live server (SENDLINE_BASE_URL).

use PHPUnit\Framework\TestCase;
use Sendline\ApiException;
use Sendline\Configuration;
use Sendline\ObjectSerializer;

final class ScenariosTest extends TestCase
{
    private Configuration $config;

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
        foreach ($scenario['steps'] as $index => $step) {
            $where = basename($file) . ' step ' . ($index + 1) . ' (' . ($step['op'] ?? 'auth') . ')';
            if (array_key_exists('auth', $step)) {
                $this->authenticate(self::interpolate($step['auth'], $vars));
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
    }
}
