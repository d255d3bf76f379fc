<?php
// Hand-written; kept across regeneration.

namespace Sendline\Errors;

/** 5xx: the server failed; retried before it reaches you. */
class ServerError extends SendlineError
{
}
