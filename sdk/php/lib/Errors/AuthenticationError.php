<?php
// Hand-written; kept across regeneration.

namespace Sendline\Errors;

/** 401: no valid credential (a missing, unknown or revoked key, an ended session). */
class AuthenticationError extends SendlineError
{
}
