import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/random.ts';
import { buildMime, encodeHeaderText, formatAddress } from './mime.ts';

const message = {
  from: { name: 'Ünïcode Shop, Inc.', address: 'news@shop.example' },
  to: 'ada@example.com',
  replyTo: 'help@shop.example',
  subject: 'Grüße aus Zürich — 50% off 🎉 for a very long subject line that needs several encoded words',
  messageId: '<msg_0abc@shop.example>',
  date: new Date('2026-11-21T10:00:00Z'),
  headers: { 'X-Sendline-Message': 'msg_0abc', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  text: 'Hello Ada,\nplain ASCII text.\n',
  html: `<p>Grüße, Ada!</p>\n<p>${'x'.repeat(1200)}</p>\n.\n.leading dot`,
};

describe('buildMime', () => {
  it('round-trips through a real MIME parser', async () => {
    const raw = buildMime(message);
    const parsed = await simpleParser(raw);
    expect(parsed.subject).toBe(message.subject);
    expect(parsed.from?.value).toEqual([{ name: 'Ünïcode Shop, Inc.', address: 'news@shop.example' }]);
    expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.text : '').toBe('ada@example.com');
    expect(parsed.replyTo?.text).toBe('help@shop.example');
    expect(parsed.messageId).toBe('<msg_0abc@shop.example>');
    expect(parsed.date?.toISOString()).toBe('2026-11-21T10:00:00.000Z');
    expect(parsed.headers.get('x-sendline-message')).toBe('msg_0abc');
    expect(parsed.text).toBe(message.text);
    expect(parsed.html).toBe(message.html);
    expect(parsed.headers.get('content-type')).toMatchObject({ value: 'multipart/alternative' });
  });

  it('keeps every line within SMTP limits and uses CRLF only', () => {
    const raw = buildMime(message);
    expect(raw.split('\r\n').every((line) => line.length <= 998)).toBe(true);
    expect(/[^\r]\n/.test(raw)).toBe(false);
    expect(raw).toContain('Content-Transfer-Encoding: 7bit');
    expect(raw).toContain('Content-Transfer-Encoding: base64');
  });
});

describe('buildMime against mailparser on generated messages', () => {
  const pieces = [
    'a',
    'Zürich',
    '—',
    '🎉',
    ' ',
    '"',
    ',',
    ';',
    '<',
    '>',
    '=?',
    '?=',
    '=_',
    '--',
    '\n',
    '\r\n',
    '.',
    '\n.\n',
    'x'.repeat(1100),
    '\t',
    '\\',
    "'",
    '@',
    '日本語',
  ];
  const random = seededRandom(11);
  const textOf = (parts: number, only?: (piece: string) => boolean) =>
    Array.from({ length: parts }, () => pieces.filter(only ?? (() => true))[random(pieces.filter(only ?? (() => true)).length)]).join('');
  const oneLine = (piece: string) => !/[\r\n\t]/.test(piece) && piece.length < 100;

  it('keeps every header, both parts and their text through the round trip', async () => {
    for (let i = 0; i < 200; i++) {
      const m = {
        from: { name: random(4) ? textOf(1 + random(5), oneLine).trim() || null : null, address: 'news@shop.example' },
        to: `r${i}@example.com`,
        replyTo: random(2) ? 'help@shop.example' : null,
        subject: textOf(1 + random(12), oneLine).trim() || 'Subject',
        messageId: `<msg_${i}@shop.example>`,
        date: new Date(Date.UTC(2026, 10, 21, 10, 0, i)),
        // The send path's own headers are ASCII (ids and URLs); mailparser leaves other headers undecoded.
        headers: { 'X-Sendline-Message': `msg_${i}`, 'X-Note': textOf(1 + random(4), (p) => oneLine(p) && /^[\x20-\x7e]+$/.test(p)).trim() || 'n' },
        text: textOf(1 + random(20)),
        html: `<p>${textOf(random(20))}</p>`,
      };
      const raw = buildMime(m);
      const label = JSON.stringify(m).slice(0, 300);
      expect(
        raw.split('\r\n').every((line) => line.length <= 998),
        label,
      ).toBe(true);
      const parsed = await simpleParser(raw);
      expect(parsed.subject, label).toBe(m.subject);
      expect(parsed.from?.value, label).toEqual([{ name: m.from.name ?? '', address: m.from.address }]);
      expect(parsed.replyTo?.text ?? null, label).toBe(m.replyTo);
      expect(parsed.messageId, label).toBe(m.messageId);
      expect(parsed.date?.getTime(), label).toBe(m.date.getTime());
      expect(parsed.headers.get('x-note'), label).toBe(m.headers['X-Note']);
      // Line ends travel as CRLF; mailparser gives them back as LF.
      expect(parsed.text ?? '', label).toBe(m.text.replace(/\r\n/g, '\n'));
      expect(parsed.html || '', label).toBe(m.html.replace(/\r\n/g, '\n'));
    }
  });
});

describe('header text', () => {
  it('encodes only what is not printable ASCII, in words of at most 75 characters', () => {
    expect(encodeHeaderText('Plain subject')).toBe('Plain subject');
    const encoded = encodeHeaderText('é'.repeat(100));
    expect(encoded.split('\r\n ').every((word) => word.length <= 75 && word.startsWith('=?UTF-8?B?'))).toBe(true);
  });

  it('quotes display names with specials', () => {
    expect(formatAddress('a@b.example', 'Shop')).toBe('Shop <a@b.example>');
    expect(formatAddress('a@b.example', 'Shop, "The" Best')).toBe('"Shop, \\"The\\" Best" <a@b.example>');
    expect(formatAddress('a@b.example', null)).toBe('a@b.example');
  });
});
