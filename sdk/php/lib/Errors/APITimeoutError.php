<?php
// Hand-written; kept across regeneration.

namespace Sendline\Errors;

/** No answer within the timeout (60 s unless the client or the call says otherwise). */
class APITimeoutError extends APIConnectionError
{
}
