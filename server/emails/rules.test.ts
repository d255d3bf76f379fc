import { describe, expect, it } from 'vitest';
import { checkEmail, MAX_ATTACHMENT_BYTES, type EmailSendRequest } from './rules.ts';

const now = new Date('2026-11-24T09:00:00Z');
const request = (overrides: Partial<EmailSendRequest> = {}): EmailSendRequest => ({
  from: { email: 'receipts@shop.example', name: 'Shop' },
  to: [{ email: 'ada@example.com' }],
  subject: 'Receipt',
  text: 'Thanks',
  track_opens: false,
  track_clicks: false,
  ...overrides,
});
const pointers = (overrides: Partial<EmailSendRequest>) => checkEmail(request(overrides), now).errors.map((e) => e.pointer);

describe('checkEmail', () => {
  it('keeps one copy per address, under the first list naming it, and folds the To header', () => {
    const { email } = checkEmail(
      request({
        to: [{ email: 'ada@example.com', name: 'Ada, Countess' }, { email: 'bob@EXAMPLE.com' }],
        cc: [{ email: 'ADA@example.com' }],
        bcc: [{ email: 'bob@example.com' }],
      }),
      now,
    );
    expect(email!.recipients.map((r) => [r.email, r.kind])).toEqual([
      ['ada@example.com', 'to'],
      ['bob@example.com', 'to'],
    ]);
    expect(email!.toHeader).toBe('"Ada, Countess" <ada@example.com>,\r\n bob@example.com');
    expect(email!.ccHeader).toBeNull();
  });

  it('makes a plain address the object without a name, in every list and in from', () => {
    const plain = checkEmail(
      request({
        from: 'receipts@shop.example',
        to: ['ada@example.com', { email: 'bob@example.com', name: 'Bob' }],
        cc: ['ADA@example.com', 'cat@EXAMPLE.com'],
        bcc: ['dan@example.com'],
      }),
      now,
    );
    const named = checkEmail(
      request({
        from: { email: 'receipts@shop.example' },
        to: [{ email: 'ada@example.com' }, { email: 'bob@example.com', name: 'Bob' }],
        cc: [{ email: 'ADA@example.com' }, { email: 'cat@EXAMPLE.com' }],
        bcc: [{ email: 'dan@example.com' }],
      }),
      now,
    );
    expect(plain).toEqual(named);
    expect(plain.email!.from).toEqual({ email: 'receipts@shop.example', name: null });
    expect(plain.email!.recipients).toEqual([
      { email: 'ada@example.com', name: null, kind: 'to' },
      { email: 'bob@example.com', name: 'Bob', kind: 'to' },
      { email: 'cat@example.com', name: null, kind: 'cc' },
      { email: 'dan@example.com', name: null, kind: 'bcc' },
    ]);
    expect(plain.email!.toHeader).toBe('ada@example.com,\r\n Bob <bob@example.com>');
    expect(plain.email!.ccHeader).toBe('cat@example.com');
  });

  it('refuses reserved headers whatever their case, and line breaks or controls in values', () => {
    for (const name of ['from', 'Message-Id', 'LIST-ID', 'content-type', 'X-Sendline-Campaign', 'Received', 'Resent-To', 'ARC-Seal'])
      expect(pointers({ headers: { [name]: 'x' } })).toEqual([`/headers/${name}`]);
    expect(pointers({ headers: { 'X-A': 'a\rb' } })).toEqual(['/headers/X-A']);
    expect(pointers({ headers: { 'X-A': 'a\u0000b' } })).toEqual(['/headers/X-A']);
    expect(pointers({ headers: { 'X-A': 'tab\tallowed', References: '<a@b>' } })).toEqual([]);
    expect(pointers({ headers: { 'a/b': 'x' } })).toEqual(['/headers/a~1b']);
  });

  it('counts attachments decoded, against 10 MB in all', () => {
    const content = (bytes: number) => Buffer.alloc(bytes).toString('base64');
    const half = MAX_ATTACHMENT_BYTES / 2;
    const at = (sizes: number[]) => sizes.map((n, i) => ({ filename: `f${i}.bin`, content_type: 'application/octet-stream', content: content(n) }));
    expect(pointers({ attachments: at([half, half]) })).toEqual([]);
    expect(pointers({ attachments: at([half, half + 1]) })).toEqual(['/attachments']);
    expect(pointers({ attachments: [{ filename: '../etc/passwd', content_type: 'text/plain', content: 'aGk=' }] })).toEqual(['/attachments/0/filename']);
    expect(pointers({ attachments: [{ filename: 'a.txt', content_type: 'text/plain', content: 'aGk' }] })).toEqual(['/attachments/0/content']);
  });

  it('limits metadata and the schedule', () => {
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
    expect(pointers({ metadata: many })).toEqual(['/metadata']);
    expect(pointers({ metadata: { ['k'.repeat(41)]: 'v' } })).toEqual([`/metadata/${'k'.repeat(41)}`]);
    expect(pointers({ metadata: { k: 'v'.repeat(501) } })).toEqual(['/metadata/k']);
    expect(pointers({ scheduled_at: new Date(now.getTime() + 72 * 3600_000 + 1000).toISOString() })).toEqual(['/scheduled_at']);
    expect(checkEmail(request({ scheduled_at: new Date(now.getTime() - 60_000).toISOString() }), now).email!.scheduledAt).toBeNull();
    expect(checkEmail(request({ scheduled_at: new Date(now.getTime() + 3600_000).toISOString() }), now).email!.scheduledAt).toEqual(
      new Date(now.getTime() + 3600_000),
    );
  });
});
