<?php
// Hand-written; kept across regeneration.

namespace Sendline\Errors;

/** 409: the request conflicts with what exists (`contact_exists`); `existingId` names it when known. */
class ConflictError extends SendlineError
{
    public readonly ?string $existingId;

    /**
     * @param array<string, mixed>|null $problem
     */
    public function __construct(string $message, ?int $status = null, ?string $code = null, ?array $problem = null, ?string $requestId = null, ?\Throwable $previous = null)
    {
        parent::__construct($message, $status, $code, $problem, $requestId, $previous);
        $this->existingId = is_string($problem['existing_id'] ?? null) ? $problem['existing_id'] : null;
    }

    public function getExistingId(): ?string
    {
        return $this->existingId;
    }
}
