<?php
// Hand-written; kept across regeneration.

namespace Sendline\Client;

use Sendline\Errors\APITimeoutError;
use Sendline\Errors\ValidationError;
use Sendline\Model\ModelInterface;

/**
 * A namespace of the client (`$client->contacts`) over one generated API class: the generated
 * `…Request()` builders make each request, Transport sends it, the generated models come back.
 *
 * Methods take the API's fields and query parameters by name (`create(email: 'ada@example.com')`)
 * or as one array (`create(['email' => 'ada@example.com'])`), beside the per-call options
 * `idempotency_key`, `timeout` (seconds) and `max_retries`.
 *
 * @internal
 */
abstract class Resource
{
    private readonly object $api;
    /** @var array<string, list<string>> the parameter names of each request builder */
    private array $builderParameters = [];

    /**
     * @param class-string $apiClass the generated API class (`Sendline\Api\ContactsApi`)
     */
    public function __construct(protected readonly Transport $transport, string $apiClass)
    {
        $this->api = new $apiClass(null, $transport->configuration());
    }

    /**
     * One call: `$builder` is the generated request builder (`createRequest`), `$path` its path
     * parameters, `$params` the caller's arguments; with `$body` (a model class) they make the
     * JSON body, otherwise they are query parameters.
     *
     * @param array<string, mixed> $path
     * @param array<string, mixed> $params
     */
    protected function call(string $builder, ?string $returns, array $path = [], array $params = [], ?string $body = null): mixed
    {
        [$params, $options] = self::options($params);
        self::checkPath($path);
        $args = $path;
        if ($body !== null) {
            $args[self::snake((new \ReflectionClass($body))->getShortName())] = self::model($body, $params, $builder);
        } else {
            $args += $this->query($builder, $params);
        }
        $response = $this->transport->send($this->build($builder, $args, $path), $options);
        return $this->transport->decode($response, $returns);
    }

    /**
     * `wait()` of imports, exports and campaigns: `$get()` every `$interval` seconds until the
     * status is one of `$final`; APITimeoutError naming the `$kind`, its id and its last status
     * after `$timeout` seconds.
     *
     * @template T of object
     * @param callable(): T $get
     * @param list<string> $final
     * @return T
     */
    protected static function waitUntilFinal(string $kind, ?string $id, callable $get, array $final, float $timeout, float $interval): object
    {
        $deadline = microtime(true) + $timeout;
        while (true) {
            $found = $get();
            if (in_array($found->getStatus(), $final, true)) {
                return $found;
            }
            if (microtime(true) + $interval > $deadline) {
                throw new APITimeoutError("$kind $id is still {$found->getStatus()} after $timeout s");
            }
            usleep((int) ($interval * 1_000_000));
        }
    }

    /**
     * A list: a Paginator over every item, fetching pages as they are used.
     *
     * @param array<string, mixed> $path
     * @param array<string, mixed> $params
     */
    protected function paginate(string $builder, string $returns, array $path = [], array $params = []): Paginator
    {
        [$query, $options] = self::options($params);
        self::checkPath($path);
        $args = $path + $this->query($builder, $query);
        return new Paginator(fn (?string $cursor) => $this->transport->decode(
            $this->transport->send($this->build($builder, [...$args, 'cursor' => $cursor ?? ($args['cursor'] ?? null)], $path), $options),
            $returns,
        ));
    }

    /**
     * An empty or missing id would make the collection's URL (`/contacts/` is not `/contacts/ct_1`).
     *
     * @param array<string, mixed> $path
     * @throws ValidationError
     */
    private static function checkPath(array $path): void
    {
        foreach ($path as $name => $value) {
            if ($value === null || trim((string) $value) === '') {
                throw ValidationError::local('validation_failed', "path.$name", 'must not be empty');
            }
        }
    }

    /**
     * The generated request builder's request. Its own checks of the arguments (a `limit` above
     * the maximum …) become a ValidationError with the server's pointer (`query.limit`).
     *
     * @param array<string, mixed> $args
     * @param array<string, mixed> $path
     */
    private function build(string $builder, array $args, array $path): \Psr\Http\Message\RequestInterface
    {
        try {
            return $this->api->$builder(...$args);
        } catch (\InvalidArgumentException $e) {
            $name = self::culprit($e);
            if ($name === null) {
                throw $e; // not a check of an argument
            }
            throw ValidationError::local('validation_failed', (array_key_exists($name, $path) ? 'path.' : 'query.') . $name, self::detail($e), $e);
        }
    }

    /** The argument a generated check names (`"$limit"`, `$email`, `'status'`), if any. */
    private static function culprit(\InvalidArgumentException $e): ?string
    {
        return preg_match('/(?:\$|non-nullable |for \'?)([a-z][a-z0-9_]*)/', $e->getMessage(), $m) === 1 ? $m[1] : null;
    }

    /** The generated message without the generator's "when calling X.y," part. */
    private static function detail(\InvalidArgumentException $e): string
    {
        return (string) preg_replace('/ when calling [\w.]+,?/', '', $e->getMessage());
    }

    /**
     * Merges arguments given as an array with those given by name.
     *
     * @param array<string, mixed> $params
     * @param array<int|string, mixed> $named
     * @return array<string, mixed>
     */
    protected static function merge(array $params, array $named): array
    {
        foreach ($named as $name => $value) {
            if (is_int($name)) {
                throw new \InvalidArgumentException('give the arguments by name (email: …) or as one array ([\'email\' => …])');
            }
            $params[$name] = $value;
        }
        return $params;
    }

    /**
     * @param array<string, mixed> $params
     * @return array{0: array<string, mixed>, 1: array<string, mixed>} the API's arguments, the per-call options
     */
    protected static function options(array $params): array
    {
        $options = array_intersect_key($params, array_flip(Transport::OPTIONS));
        return [array_diff_key($params, $options), $options];
    }

    /**
     * @param array<string, mixed> $params
     * @return array<string, mixed>
     */
    private function query(string $builder, array $params): array
    {
        $known = $this->builderParameters[$builder] ??= array_map(
            fn (\ReflectionParameter $p) => $p->getName(),
            (new \ReflectionMethod($this->api, $builder))->getParameters(),
        );
        foreach (array_keys($params) as $name) {
            if (!in_array($name, $known, true) || $name === 'contentType') {
                throw new \InvalidArgumentException(static::class . ": unknown argument '$name'");
            }
        }
        return $params;
    }

    /**
     * @param class-string<ModelInterface> $class
     * @param array<string, mixed> $params
     */
    private static function model(string $class, array $params, string $builder): ModelInterface
    {
        $unknown = array_diff(array_keys($params), array_keys($class::attributeMap()));
        if ($unknown !== []) {
            throw new \InvalidArgumentException(static::class . ': unknown argument \'' . implode("', '", $unknown) . "' (" . substr($builder, 0, -7) . ' takes ' . implode(', ', array_keys($class::attributeMap())) . ')');
        }
        try {
            $model = new $class($params);
        } catch (\InvalidArgumentException $e) {
            $name = self::culprit($e);
            throw ValidationError::local('validation_failed', $name !== null ? '/' . ($class::attributeMap()[$name] ?? $name) : '', self::detail($e), $e);
        }
        // An enum's value is checked when the body is serialised, with a message that does not
        // name the field: check it here, named as the server would.
        foreach ($class::openAPITypes() as $property => $type) {
            $allowed = [$type, 'getAllowableEnumValues'];
            $value = $params[$property] ?? null;
            if ($value !== null && is_callable($allowed) && !in_array($value, $allowed(), true)) {
                throw ValidationError::local('validation_failed', '/' . $class::attributeMap()[$property], "must be one of '" . implode("', '", $allowed()) . "'");
            }
        }
        return $model;
    }

    /** @return array<string, mixed> */
    public function __debugInfo(): array
    {
        return ['transport' => $this->transport];
    }

    private static function snake(string $name): string
    {
        return strtolower((string) preg_replace('/(?<!^)[A-Z]/', '_$0', $name));
    }
}
