<?php
// Hand-written; kept across regeneration.

namespace Sendline\Errors;

/** A webhook delivery not signed with the endpoint's secret, too old or too new, or malformed. */
class WebhookVerificationError extends SendlineError
{
}
