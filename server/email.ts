/** Email addresses as Sendline stores them: trimmed, with the domain lower-cased. */
export function normaliseEmail(email: string): string {
  const trimmed = email.trim();
  const at = trimmed.lastIndexOf('@');
  return at < 0 ? trimmed : trimmed.slice(0, at) + '@' + trimmed.slice(at + 1).toLowerCase();
}

// One @, no spaces, a dot in the domain, no empty labels: what mail relays accept in practice.
const SHAPE = /^[^\s@"(),:;<>[\\\]]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;

export function isValidEmail(email: string): boolean {
  if (email.length > 254) return false;
  const at = email.lastIndexOf('@');
  return at > 0 && at <= 64 && SHAPE.test(email) && !email.includes('..');
}
