import { describe, expect, it } from 'vitest';
import { scrubbed, withoutLiterals } from './redaction.ts';

describe('what traces leave out', () => {
  it('replaces SQL string literals, quotes and escapes within them included', () => {
    expect(withoutLiterals(`insert into users (email, name) values ('a@b.example', 'O''Brien'), (E'x\\\\y', '') where n = 5`)).toBe(
      'insert into users (email, name) values (?, ?), (?, ?) where n = 5',
    );
    expect(withoutLiterals(`select * from contacts where email = E'o''b\\\\''' and id = 'ct_1'`)).toBe('select * from contacts where email = ? and id = ?');
    expect(withoutLiterals('select $1::text')).toBe('select $1::text');
  });

  it("keeps an error's type and drops its message, on the status and the exception events", () => {
    class Span {
      status = { code: 2, message: 'duplicate key value (email)=(ada@example.com)' };
      events = [
        {
          name: 'exception',
          attributes: { 'exception.type': '23505', 'exception.message': 'ada@example.com', 'exception.stacktrace': 'Error: ada@example.com' },
        },
        { name: 'other', attributes: { kept: 'yes' } },
      ];
      spanContext() {
        return { traceId: 't' };
      }
    }
    const span = scrubbed(new Span());
    expect(span.status).toEqual({ code: 2 });
    expect(span.events).toEqual([
      { name: 'exception', attributes: { 'exception.type': '23505' } },
      { name: 'other', attributes: { kept: 'yes' } },
    ]);
    expect(span.spanContext()).toEqual({ traceId: 't' });
    expect(JSON.stringify(span)).not.toContain('ada@');
  });
});
