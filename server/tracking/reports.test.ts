import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseReport } from './reports.ts';

const MESSAGE = 'msg_0AbCdEfGhIjKlMnOpQrStU';

function fixture(name: string, values: Record<string, string>): string {
  const text = readFileSync(new URL(`../../test/fixtures/${name}`, import.meta.url), 'utf8');
  return text.replace(/\{\{(\w+)\}\}/g, (_, key) => values[key]);
}

const values = { RETURN_PATH: `bounces+${MESSAGE}@sendline.test`, RECIPIENT: 'nobody@example.net', MESSAGE_ID: MESSAGE, STATUS: '5.1.1', CODE: '550' };

describe('parseReport', () => {
  it('reads a Postfix DSN: recipient, status, diagnostic code, message by VERP', () => {
    const report = parseReport(fixture('dsn-postfix.eml', values), [values.RETURN_PATH]);
    expect(report).toMatchObject({ messageId: MESSAGE, type: 'hard', recipient: 'nobody@example.net', feedbackType: null });
    expect(report!.diagnosticCode).toBe('smtp; 550 5.1.1 <nobody@example.net>: Recipient address rejected: User unknown in virtual mailbox table');
    expect(report!.reason).toContain('failed (5.1.1)');
  });

  it('finds the message through the returned headers when the envelope does not name it', () => {
    const report = parseReport(fixture('dsn-postfix.eml', { ...values, RETURN_PATH: 'bounces@sendline.test' }), ['postmaster@sendline.test']);
    expect(report?.messageId).toBe(MESSAGE);
  });

  it('classifies 4.x.x as soft, and CRLF line ends make no difference', () => {
    const raw = fixture('dsn-postfix.eml', { ...values, STATUS: '4.2.2', CODE: '452' }).replace(/\n/g, '\r\n');
    expect(parseReport(raw, [])).toMatchObject({ type: 'soft', messageId: MESSAGE, recipient: 'nobody@example.net' });
  });

  it('reads an ARF abuse report as a complaint', () => {
    const report = parseReport(fixture('arf-complaint.eml', values), ['abuse@sendline.test']);
    expect(report).toMatchObject({ messageId: MESSAGE, type: 'complaint', feedbackType: 'abuse', recipient: 'nobody@example.net' });
  });

  it('ignores ordinary mail and forged ids', () => {
    expect(parseReport('Subject: hello\r\n\r\nJust a note.\r\n', [])).toBeNull();
    const forged = fixture('dsn-postfix.eml', { ...values, MESSAGE_ID: 'msg_short', RETURN_PATH: 'bounces+msg_short@sendline.test' });
    expect(parseReport(forged, ['bounces+msg_short@sendline.test'])?.messageId).toBeNull();
  });
});
