# Auto-pagination over the cursor-paginated lists. Hand-written; kept across regeneration.
module Sendline
  # Every item of a list across its pages, fetched lazily page by page (following `next_cursor`)
  # as you iterate: `client.contacts.list(tag: 'vip').each { |c| … }`, or any Enumerable method
  # (`first(10)`, `map`, `lazy`). Nothing is fetched before you iterate.
  class ListCursor
    include Enumerable

    # fetch: called with a cursor (nil for the first page), answers a page (`data`, `next_cursor`).
    def initialize(&fetch)
      @fetch = fetch
    end

    def each(&block)
      return enum_for(:each) unless block

      each_page { |page| page.data.each(&block) }
    end

    # Each page (the generated …Page model), lazily.
    def each_page
      return enum_for(:each_page) unless block_given?

      cursor = nil
      loop do
        page = @fetch.call(cursor)
        yield page
        cursor = page.next_cursor
        break if cursor.nil? || cursor.empty?
      end
    end

    # The first page only (one request), e.g. to read `next_cursor` and resume later with `cursor:`.
    def first_page
      @fetch.call(nil)
    end

    def inspect
      "#<#{self.class.name}>"
    end
  end
end
