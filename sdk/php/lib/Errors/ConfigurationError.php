<?php
// Hand-written; kept across regeneration.

namespace Sendline\Errors;

/** The client cannot work as configured (no API key, a base URL that is not http(s)). */
class ConfigurationError extends SendlineError
{
}
