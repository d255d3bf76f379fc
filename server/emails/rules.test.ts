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
