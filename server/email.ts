/** The domain of an address, lower-cased. */
export const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1).toLowerCase();

/** Email addresses as Sendline stores them: trimmed, with the domain lower-cased. */
export function normaliseEmail(email: string): string {
  const trimmed = email.trim();
  const at = trimmed.lastIndexOf('@');
  return at < 0 ? trimmed : trimmed.slice(0, at) + '@' + trimmed.slice(at + 1).toLowerCase();
}

// One @, no spaces, a dot in the domain, no empty labels: what mail relays accept in practice.
const LOCAL = String.raw`[^\s@"(),:;<>[\\\]]+`;
const DOMAIN = String.raw`[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+`;
const SHAPE = new RegExp(`^${LOCAL}@${DOMAIN}$`);
const IN_TEXT = new RegExp(`${LOCAL}@${DOMAIN}`, 'g');

export function isValidEmail(email: string): boolean {
  if (email.length > 254) return false;
  const at = email.lastIndexOf('@');
  return at > 0 && at <= 64 && SHAPE.test(email) && !email.includes('..');
}

/**
 * The valid addresses `text` shows. A domain ends where its last label does, before any `.` or
 * `-` that follows it (the end of a sentence). The characters before the `@` are taken as
 * written and, since an address may hold them too, also without what precedes a quote, `=`,
 * `/`, `?` or `&` in them (`'ada@…'` in prose, `?to=ada@…` in a link).
 */
export function addressesIn(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.match(IN_TEXT) ?? []) {
    for (const candidate of [match, match.replace(/^.*['`=/?&]/, '')]) if (isValidEmail(candidate)) found.add(candidate);
  }
  return [...found];
}
