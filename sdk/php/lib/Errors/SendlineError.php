<?php
// Hand-written; kept across regeneration.

namespace Sendline\Errors;

use Psr\Http\Message\ResponseInterface;

/**
 * Every error the client throws. From an answer of the API: `status` (HTTP), `code` (the
 * problem's stable code, e.g. `not_found`; also `getCode()`, as PDOException does with its
 * SQLSTATE), `problem` (the RFC 9457 body as an array) and `requestId` (the `X-Request-Id`).
 */
class SendlineError extends \RuntimeException
{
    /** @var string|null the problem's code (`contact_exists`), null without an answer */
    public $code;

    /**
     * @param array<string, mixed>|null $problem
     */
    public function __construct(
        string $message,
        public readonly ?int $status = null,
        ?string $code = null,
        public readonly ?array $problem = null,
        public readonly ?string $requestId = null,
        ?\Throwable $previous = null,
    ) {
        parent::__construct($message, 0, $previous);
        $this->code = $code;
    }

    public function getStatus(): ?int
    {
        return $this->status;
    }

    /** @return array<string, mixed>|null */
    public function getProblem(): ?array
    {
        return $this->problem;
    }

    public function getRequestId(): ?string
    {
        return $this->requestId;
    }

    /** The error of the class that fits an answer with a status of 400 or more. */
    public static function fromResponse(ResponseInterface $response): self
    {
        $status = $response->getStatusCode();
        $decoded = json_decode((string) $response->getBody(), true);
        $problem = is_array($decoded) && !array_is_list($decoded) ? $decoded : null;
        $code = is_string($problem['code'] ?? null) ? $problem['code'] : null;
        $detail = $problem['detail'] ?? $problem['title'] ?? $response->getReasonPhrase();
        // `404 not_found: No contact ct_1`, or `503: Service Unavailable` without a problem body.
        $message = $status . ($code !== null ? " $code" : '') . (is_string($detail) && $detail !== '' ? ": $detail" : '');
        $requestId = $response->getHeaderLine('X-Request-Id') ?: null;
        return match (true) {
            $status === 400, $status === 422 => new ValidationError($message, $status, $code, $problem, $requestId),
            $status === 401 => new AuthenticationError($message, $status, $code, $problem, $requestId),
            $status === 403 => new PermissionDeniedError($message, $status, $code, $problem, $requestId),
            $status === 404 => new NotFoundError($message, $status, $code, $problem, $requestId),
            $status === 409 => new ConflictError($message, $status, $code, $problem, $requestId),
            $status === 429 => new RateLimitError($message, $status, $code, $problem, $requestId, RateLimitError::secondsFrom($response->getHeaderLine('Retry-After'))),
            $status >= 500 => new ServerError($message, $status, $code, $problem, $requestId),
            default => new self($message, $status, $code, $problem, $requestId),
        };
    }
}
