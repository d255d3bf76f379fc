<?php
// Hand-written; kept across regeneration.

namespace Sendline\Errors;

/** 404: no such resource in the account. */
class NotFoundError extends SendlineError
{
}
