<?php
// Hand-written; kept across regeneration.

namespace Sendline\Errors;

use Sendline\Model\FieldError;

/** 400 or 422: the request does not fit the contract. `errors` lists the fields at fault. */
class ValidationError extends SendlineError
{
    /** @var list<FieldError> each with getPointer() (`/email`, `query.limit`) and getDetail() */
    public readonly array $errors;

    /**
     * @param array<string, mixed>|null $problem
     */
    public function __construct(string $message, ?int $status = null, ?string $code = null, ?array $problem = null, ?string $requestId = null, ?\Throwable $previous = null)
    {
        parent::__construct($message, $status, $code, $problem, $requestId, $previous);
        $errors = is_array($problem['errors'] ?? null) ? $problem['errors'] : [];
        $this->errors = array_values(array_map(
            fn (array $error) => new FieldError(['pointer' => (string) ($error['pointer'] ?? ''), 'detail' => (string) ($error['detail'] ?? '')]),
            array_filter($errors, 'is_array'),
        ));
    }

    /**
     * An error found before sending (status null): `$code` with one field error at `$pointer`
     * (`path.id`, `query.limit`, `/email`, `header.Idempotency-Key`).
     */
    public static function local(string $code, string $pointer, string $detail, ?\Throwable $previous = null): self
    {
        $problem = ['code' => $code, 'detail' => "$pointer: $detail", 'errors' => [['pointer' => $pointer, 'detail' => $detail]]];
        return new self("$code: $pointer: $detail", null, $code, $problem, null, $previous);
    }

    /** @return list<FieldError> */
    public function getErrors(): array
    {
        return $this->errors;
    }
}
