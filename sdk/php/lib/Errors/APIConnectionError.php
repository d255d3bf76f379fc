<?php
// Hand-written; kept across regeneration.

namespace Sendline\Errors;

/** No answer: the connection failed or broke. The transport's exception is chained (getPrevious()). */
class APIConnectionError extends SendlineError
{
}
