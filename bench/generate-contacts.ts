/**
 * Writes a contacts CSV for the import benchmark: realistic names and emails, 5 custom columns,
 * 1% invalid emails, 2% repeats of earlier emails. Deterministic for a given row count.
 *   node bench/generate-contacts.ts OUT.csv [ROWS]
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

const FIRST = [
  'Ada',
  'Ben',
  'Chloé',
  'David',
  'Emma',
  'Farid',
  'Grace',
  'Hiro',
  'Inès',
  'Jonas',
  'Kemal',
  'Lena',
  'Mateo',
  'Nora',
  'Omar',
  'Priya',
  'Quinn',
  'Rosa',
  'Sven',
  'Tara',
];
const LAST = [
  'Anders',
  'Brown',
  "O'Connor",
  'Dubois',
  'Evans',
  'García',
  'Hansen',
  'Ito',
  'Jensen',
  'Kowalski',
  'Lopez',
  'Müller',
  'Nakamura',
  'Okafor',
  'Petrov',
  'Rossi',
  'Smith',
  'Tanaka',
  'Urban',
  'Virtanen',
];
const DOMAINS = ['example.com', 'mail.example.org', 'corp.example.net', 'example.co.uk', 'post.example.de'];
const PLANS = ['free', 'pro', 'team', 'enterprise'];
const CITIES = ['Lisbon', 'Berlin', 'Osaka', 'Toronto', 'Lagos', 'São Paulo', 'Pune'];

/** A small deterministic PRNG, so every run imports the same file. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

export async function generateContactsCsv(file: string, rows: number): Promise<void> {
  const next = random(42);
  const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)];
  const out = createWriteStream(file);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write('email,first_name,last_name,tags,plan,city,signup_date,score,referrer\n');
  let buffer = '';
  for (let i = 1; i <= rows; i++) {
    const roll = next();
    // A repeat names an earlier person again: same email, other details may differ.
    const n = roll < 0.02 && i > 100 ? Math.floor(next() * (i - 1)) + 1 : i;
    const first = FIRST[n % FIRST.length];
    const last = LAST[Math.floor(n / FIRST.length) % LAST.length];
    const email =
      roll > 0.99 ? `${first}.${last}.${n}#invalid` : `${first}.${last}.${n}@${DOMAINS[n % DOMAINS.length]}`.toLowerCase().replace(/[^a-z0-9.@-]/g, '');
    const name = last.includes("'") ? `"${last}"` : last;
    buffer += `${email},${first},${name},${pick(PLANS)}|newsletter,${pick(PLANS)},"${pick(CITIES)}",2026-0${1 + (n % 9)}-1${n % 10},${Math.floor(next() * 100)},${n % 3 ? 'search' : 'friend'}\n`;
    if (buffer.length > 64 * 1024) {
      await write(buffer);
      buffer = '';
    }
  }
  await write(buffer);
  out.end();
  await once(out, 'finish');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await generateContactsCsv(process.argv[2] ?? 'contacts.csv', Number(process.argv[3] ?? 1_000_000));
}
