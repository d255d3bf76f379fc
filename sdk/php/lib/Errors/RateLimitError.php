<?php
// Hand-written; kept across regeneration.

namespace Sendline\Errors;

/**
 * 429: too many requests. `retryAfter` is the server's `Retry-After` in seconds: the client
 * waits and retries by itself when it is at most 20 s, and throws this at once when longer.
 */
class RateLimitError extends SendlineError
{
    /**
     * @param array<string, mixed>|null $problem
     */
    public function __construct(
        string $message,
        ?int $status = null,
        ?string $code = null,
        ?array $problem = null,
        ?string $requestId = null,
        public readonly ?float $retryAfter = null,
        ?\Throwable $previous = null,
    ) {
        parent::__construct($message, $status, $code, $problem, $requestId, $previous);
    }

    public function getRetryAfter(): ?float
    {
        return $this->retryAfter;
    }

    /** `Retry-After` in seconds: a number of seconds or an HTTP date; null when absent or unreadable. */
    public static function secondsFrom(string $header): ?float
    {
        $header = trim($header);
        if ($header === '') {
            return null;
        }
        if (is_numeric($header)) {
            return max(0.0, (float) $header);
        }
        $at = strtotime($header);
        return $at === false ? null : max(0.0, (float) ($at - time()));
    }
}
