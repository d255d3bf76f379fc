<?php
// Hand-written; kept across regeneration.

namespace Sendline;

/**
 * A verified webhook event of a type this SDK does not know yet (the server has more event
 * types than when the SDK was built), or of a known type whose payload does not fit its model.
 * Same getters as the typed events; `getData()` is an array.
 */
final class UnknownEvent implements \JsonSerializable
{
    /**
     * @param array<string, mixed> $data
     * @param array<string, mixed> $raw the whole event as delivered
     */
    public function __construct(
        public readonly string $id,
        public readonly string $type,
        public readonly ?\DateTimeImmutable $createdAt,
        public readonly ?string $accountId,
        public readonly array $data,
        private readonly array $raw,
    ) {
    }

    public function getId(): string
    {
        return $this->id;
    }

    public function getType(): string
    {
        return $this->type;
    }

    public function getCreatedAt(): ?\DateTimeImmutable
    {
        return $this->createdAt;
    }

    public function getAccountId(): ?string
    {
        return $this->accountId;
    }

    /** @return array<string, mixed> */
    public function getData(): array
    {
        return $this->data;
    }

    /** @return array<string, mixed> */
    public function jsonSerialize(): array
    {
        return $this->raw;
    }
}
