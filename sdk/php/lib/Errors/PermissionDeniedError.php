<?php
// Hand-written; kept across regeneration.

namespace Sendline\Errors;

/** 403: the key lacks the scope or the role, or is used from an address it does not allow. */
class PermissionDeniedError extends SendlineError
{
}
