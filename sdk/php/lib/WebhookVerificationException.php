<?php
// Hand-written; kept across regeneration.

namespace Sendline;

/** A webhook delivery that is not signed by the endpoint's secret, or is too old. */
final class WebhookVerificationException extends \RuntimeException
{
}
