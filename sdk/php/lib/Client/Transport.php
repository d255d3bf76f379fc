<?php
// Hand-written; kept across regeneration.

namespace Sendline\Client;

use GuzzleHttp\Client as GuzzleClient;
use GuzzleHttp\ClientInterface;
use GuzzleHttp\Exception\ConnectException;
use GuzzleHttp\Exception\GuzzleException;
use GuzzleHttp\Exception\RequestException;
use GuzzleHttp\RequestOptions;
use Psr\Http\Message\RequestInterface;
use Psr\Http\Message\ResponseInterface;
use Sendline\Configuration;
use Sendline\Errors\APIConnectionError;
use Sendline\Errors\APITimeoutError;
use Sendline\Errors\ConfigurationError;
use Sendline\Errors\RateLimitError;
use Sendline\Errors\SendlineError;
use Sendline\Errors\ValidationError;
use Sendline\ObjectSerializer;
use Sendline\Sendline;

/**
 * Sends the requests the generated API classes build: the credential, User-Agent and
 * Idempotency-Key headers, the timeout, retries with backoff, and the typed errors.
 *
 * @internal
 */
final class Transport
{
    /** Per-call options every method takes beside the API's own arguments. */
    public const OPTIONS = ['idempotency_key', 'timeout', 'max_retries'];
    public const USER_AGENT = 'sendline-php/' . Sendline::VERSION;
    /** Longest Retry-After waited for; above it the error is thrown at once. */
    public const MAX_RETRY_AFTER = 20.0;
    private const BACKOFF_BASE = 0.5;
    private const BACKOFF_CAP = 8.0;
    private const CURLE_OPERATION_TIMEDOUT = 28;

    public readonly string $baseUrl;
    private readonly ClientInterface $http;
    private readonly Configuration $configuration;
    /** The key is held by a closure so that var_export()/serialize() of the client cannot show it. */
    private readonly \Closure $credential;

    public function __construct(string $baseUrl, ?string $apiKey, private readonly float $timeout, private readonly int $maxRetries, ?ClientInterface $http = null)
    {
        if ($timeout <= 0) {
            throw new ConfigurationError("timeout must be more than 0 seconds, not $timeout");
        }
        if ($maxRetries < 0) {
            throw new ConfigurationError("max_retries must be 0 or more, not $maxRetries");
        }
        $this->baseUrl = self::normaliseBaseUrl($baseUrl);
        $this->http = $http ?? new GuzzleClient();
        $this->configuration = (new Configuration())->setHost($this->baseUrl)->setUserAgent(self::USER_AGENT);
        if ($apiKey !== null) {
            // A key read from a file keeps its line break; any other character outside visible
            // ASCII would make an invalid (or an injected) header line. Never quote the key.
            $apiKey = trim($apiKey);
            if (preg_match('/^[\x21-\x7E]+$/D', $apiKey) !== 1) {
                throw new ConfigurationError('the API key holds a character that is not visible ASCII (a space, a control character or a non-ASCII letter): check the value given');
            }
        }
        $this->credential = static fn (): ?string => $apiKey;
    }

    /**
     * `https://host`, `https://host/api`, `…/api/v1`, `…/v1`, with or without a trailing slash,
     * all become `https://host/api/v1`. The scheme is kept as given.
     */
    public static function normaliseBaseUrl(string $url): string
    {
        $url = trim($url);
        // parse_url() would turn a line break into `_`: refuse spaces and control characters.
        $parts = preg_match('/[\x00-\x20\x7F]/', $url) === 1 ? false : parse_url($url);
        $scheme = strtolower($parts['scheme'] ?? '');
        if ($parts === false || !in_array($scheme, ['http', 'https'], true) || ($parts['host'] ?? '') === '') {
            throw new ConfigurationError('base_url must be an http:// or https:// URL, not ' . json_encode($url, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE));
        }
        $authority = $parts['host'] . (isset($parts['port']) ? ":{$parts['port']}" : '');
        $path = preg_replace('#/(api/v1|api|v1)$#', '', rtrim($parts['path'] ?? '', '/'));
        $normalised = "$scheme://$authority$path/api/v1";
        try {
            new \GuzzleHttp\Psr7\Uri($normalised);
        } catch (\InvalidArgumentException $e) {
            throw new ConfigurationError("base_url is not a valid URL: {$e->getMessage()}", null, null, null, null, $e);
        }
        return $normalised;
    }

    public function configuration(): Configuration
    {
        return $this->configuration;
    }

    /**
     * Sends the request, retrying what is safe to retry, and answers the 2xx response.
     *
     * @param array{idempotency_key?: string, timeout?: float|int, max_retries?: int} $options
     * @throws SendlineError
     */
    public function send(RequestInterface $request, array $options = []): ResponseInterface
    {
        $request = $request->withHeader('User-Agent', self::USER_AGENT)->withoutHeader('X-API-Key');
        if (isset($options['idempotency_key'])) {
            // A number (an order's id) is a fine key, sent as its digits.
            $options['idempotency_key'] = is_int($options['idempotency_key']) ? (string) $options['idempotency_key'] : $options['idempotency_key'];
            self::checkIdempotencyKey($options['idempotency_key']);
        }
        if (strtoupper($request->getMethod()) === 'POST') {
            // The same key on every attempt: the server answers a retry of a POST that did reach
            // it with the stored answer instead of acting twice.
            $request = $request->withHeader('Idempotency-Key', (string) ($options['idempotency_key'] ?? self::uuid4()));
        }
        $timeout = (float) ($options['timeout'] ?? $this->timeout);
        $maxRetries = (int) ($options['max_retries'] ?? $this->maxRetries);
        if ($timeout <= 0 || $maxRetries < 0) {
            // Guzzle reads a timeout of 0 as "wait for ever".
            throw new \InvalidArgumentException('timeout must be more than 0 seconds and max_retries 0 or more');
        }
        $body = $request->getBody();
        $rewindable = $body->isSeekable();
        $credential = ($this->credential)();
        for ($attempt = 0; ; $attempt++) {
            // A body that cannot be rewound (a pipe) is sent once.
            $canRetry = $attempt < $maxRetries && $rewindable;
            if ($attempt > 0 && $rewindable) {
                $body->rewind();
            }
            try {
                $response = $this->http->send($credential === null ? $request : $request->withHeader('Authorization', "Bearer $credential"), [
                    RequestOptions::TIMEOUT => $timeout,
                    RequestOptions::HTTP_ERRORS => false,
                    RequestOptions::ALLOW_REDIRECTS => false,
                ]);
            } catch (GuzzleException $e) {
                $error = self::connectionError($e, $request, $timeout);
                if (!$canRetry) {
                    throw $error;
                }
                self::sleep(self::backoff($attempt));
                continue;
            }
            $status = $response->getStatusCode();
            if ($status < 400) {
                return $response;
            }
            $error = SendlineError::fromResponse($response);
            if (!$canRetry || !self::retryable($status, $error)) {
                throw $error;
            }
            $retryAfter = RateLimitError::secondsFrom($response->getHeaderLine('Retry-After'));
            if ($retryAfter !== null && $retryAfter > self::MAX_RETRY_AFTER) {
                throw $error; // never block for long without the caller knowing
            }
            self::sleep($retryAfter ?? self::backoff($attempt));
        }
    }

    /**
     * The response's JSON as the generated model (or list of models) of that class.
     *
     * @param string|null $returns a model class, `string` for text, null for no content
     */
    public function decode(ResponseInterface $response, ?string $returns): mixed
    {
        if ($returns === null) {
            return null;
        }
        $text = (string) $response->getBody();
        if ($returns === 'string') {
            return $text;
        }
        $status = $response->getStatusCode();
        $requestId = $response->getHeaderLine('X-Request-Id') ?: null;
        try {
            $data = json_decode($text, false, 512, JSON_THROW_ON_ERROR);
        } catch (\JsonException $e) {
            throw new SendlineError("$status: the answer is not JSON", $status, 'invalid_response', null, $requestId, $e);
        }
        if (!is_object($data)) {
            // Every answer of the API is a JSON object; anything else would make an empty model.
            throw new SendlineError("$status: the answer is not a JSON object", $status, 'invalid_response', null, $requestId);
        }
        try {
            return ObjectSerializer::deserialize($data, '\\' . ltrim($returns, '\\'), $response->getHeaders());
        } catch (\Exception $e) {
            throw new SendlineError("$status: the answer does not fit " . ltrim($returns, '\\') . ": {$e->getMessage()}", $status, 'invalid_response', null, $requestId, $e);
        }
    }

    /**
     * The server's rule for an Idempotency-Key: 1 to 255 printable ASCII characters, no space at
     * either end (so no caller value can add a header line).
     *
     * @throws ValidationError
     */
    private static function checkIdempotencyKey(mixed $key): void
    {
        if (!is_string($key) || preg_match('/^[\x21-\x7E]([\x20-\x7E]{0,253}[\x21-\x7E])?$/D', $key) !== 1) {
            throw ValidationError::local('invalid_idempotency_key', 'header.Idempotency-Key', 'must be 1 to 255 printable ASCII characters without a space at either end');
        }
    }

    private static function retryable(int $status, SendlineError $error): bool
    {
        return $status === 408 || $status === 429 || $status >= 500 || ($status === 409 && $error->code === 'idempotency_key_in_use');
    }

    /** Full jitter: anything from 0 to 0.5 s × 2^attempt, at most 8 s. */
    private static function backoff(int $attempt): float
    {
        $ceiling = min(self::BACKOFF_CAP, self::BACKOFF_BASE * 2 ** $attempt);
        return $ceiling * (random_int(0, PHP_INT_MAX) / PHP_INT_MAX);
    }

    private static function sleep(float $seconds): void
    {
        usleep((int) round($seconds * 1_000_000));
    }

    /**
     * No answer. The cause stays chained, rebuilt around the request as the caller built it
     * (without the Authorization header), so that dumping the error never shows the key.
     */
    private static function connectionError(GuzzleException $e, RequestInterface $request, float $timeout): APIConnectionError
    {
        $context = $e instanceof ConnectException || $e instanceof RequestException ? $e->getHandlerContext() : [];
        $cause = $e instanceof RequestException && $e->getResponse() !== null
            ? new RequestException($e->getMessage(), $request, null, null, $context)
            : new ConnectException($e->getMessage(), $request, null, $context);
        // The URL without its query string (nor any user info): what could not be reached.
        $where = (string) $request->getUri()->withQuery('')->withFragment('')->withUserInfo('');
        $timedOut = ($context['errno'] ?? null) === self::CURLE_OPERATION_TIMEDOUT || stripos($e->getMessage(), 'timed out') !== false;
        $reason = is_string($context['error'] ?? null) && $context['error'] !== ''
            ? $context['error']
            // Guzzle's own message ends with " for <the whole URL>"; the URL is named already.
            : (string) preg_replace('/ \(see https?:\S+\)| for https?:\S+$/', '', $e->getMessage());
        return $timedOut
            ? new APITimeoutError("Could not reach $where: no answer within {$timeout} s", null, null, null, null, $cause)
            : new APIConnectionError("Could not reach $where: $reason", null, null, null, null, $cause);
    }

    private static function uuid4(): string
    {
        $bytes = random_bytes(16);
        $bytes[6] = chr((ord($bytes[6]) & 0x0f) | 0x40);
        $bytes[8] = chr((ord($bytes[8]) & 0x3f) | 0x80);
        return vsprintf('%s%s-%s-%s-%s-%s%s%s', str_split(bin2hex($bytes), 4));
    }

    /** @return array<string, mixed> */
    public function __debugInfo(): array
    {
        return ['baseUrl' => $this->baseUrl, 'credential' => ($this->credential)() === null ? null : '[hidden]', 'timeout' => $this->timeout, 'maxRetries' => $this->maxRetries];
    }

    public function __serialize(): array
    {
        throw new \LogicException('a Sendline client cannot be serialized: it holds a credential');
    }
}
