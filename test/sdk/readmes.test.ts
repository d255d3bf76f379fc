/**
 * What each SDK's README tells a reader about its surface: every namespace of the contract, in
 * the language's spelling, has its line in the README's Resources table, and transactional email
 * is shown with a plain and a named address.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { operations } from '../../sdk/node/src/operations.ts';

const snake = (name: string) => name.replace(/(?<!^)([A-Z])/g, '_$1').toLowerCase();
const camel = (name: string) => name[0].toLowerCase() + name.slice(1);

/** The contract's resources: `Contacts_create` belongs to `Contacts`. */
const RESOURCES = [...new Set(Object.keys(operations).map((id) => id.split('_')[0]))];

const SDKS = {
  python: { spell: snake, send: /client\.emails\.send\(/ },
  node: { spell: camel, send: /sendline\.emails\.send\(/ },
  php: { spell: camel, send: /\$client->emails->send\(/ },
  ruby: { spell: snake, send: /client\.emails\.send\(/ },
};

describe.each(Object.entries(SDKS))('the %s SDK README', (language, { spell, send }) => {
  const readme = readFileSync(new URL(`../../sdk/${language}/README.md`, import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Resources\n'), readme.indexOf('\n## ', readme.indexOf('\n## Resources\n') + 1));

  it('lists every namespace of the contract, one table row each', () => {
    expect(RESOURCES).toHaveLength(29);
    const rows = [...section.matchAll(/^\| `(\w+)` \|/gm)].map((match) => match[1]);
    expect(rows.sort()).toEqual(RESOURCES.map(spell).sort());
  });

  it('shows emails.send with a plain and a named address', () => {
    const call = section.slice(section.search(send));
    expect(call.length, 'no emails.send call').toBeLessThan(section.length);
    const example = call.slice(0, call.indexOf('```'));
    expect(example).toMatch(/["']ada@example\.com["']/);
    expect(example).toMatch(/["']?email["']?\s*(=>|:)\s*["']grace@example\.com["'],\s*["']?name["']?\s*(=>|:)\s*["']Grace Hopper["']/);
  });
});
