/**
 * IANA time zone names, as contacts and accounts keep them. Checked with the runtime's ICU, the
 * same data that reads them back (luxon, `Intl`); offsets such as `+01:00` are refused, since
 * PostgreSQL reads them with the POSIX sign, the other way round.
 */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;
const MAX_ZONE_LENGTH = 64;

/**
 * The name to keep for `name`: as given, in its canonical case when it differs only by case
 * (`europe/paris` → `Europe/Paris`, `utc` → `UTC`); null when it names no zone.
 */
export function timeZoneName(name: string): string | null {
  const known = checked.get(name);
  if (known !== undefined) return known;
  const zone = check(name);
  // An import's million rows name a few zones; ICU takes tens of microseconds per check.
  if (checked.size >= MAX_CHECKED) checked.clear();
  checked.set(name, zone);
  return zone;
}

const checked = new Map<string, string | null>();
const MAX_CHECKED = 2000;

function check(name: string): string | null {
  if (name.length > MAX_ZONE_LENGTH || !ZONE_NAME.test(name)) return null;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  return resolved.toLowerCase() === name.toLowerCase() ? resolved : name;
}
