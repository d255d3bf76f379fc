<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\ConversionsApi;
use Sendline\Client\Paginator;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\Conversion;
use Sendline\Model\ConversionCreate;
use Sendline\Model\ConversionPage;

/** Conversions attributed to campaigns. */
class Conversions extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, ConversionsApi::class);
    }

    /**
     * Every item, page by page (a lazy iterator; `firstPage()` for one page).
     *
     * @return Paginator<\Sendline\Model\Conversion>
     */
    public function list(array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('callListRequest', ConversionPage::class, [], self::merge($params, $named));
    }

    public function create(array $params = [], mixed ...$named): Conversion
    {
        return $this->call('createRequest', Conversion::class, [], self::merge($params, $named), ConversionCreate::class);
    }
}
