/**
 * The README and the pages of docs/ link to one another by relative paths, as GitHub shows them:
 * every such link names a file that exists, and an anchor names a heading of that file.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PAGES = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function anchorsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/^#+ (.+)$/gm)].map(([, heading]) => anchorOf(heading));
}

describe.each(PAGES)('%s', (page) => {
  it('links only to files and headings that exist', () => {
    const text = readFileSync(path.join(ROOT, page), 'utf8').replace(/```[\s\S]*?```/g, '');
    const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map(([, target]) => target).filter((target) => !/^([a-z]+:|\/)/.test(target));
    for (const link of links) {
      const [file, anchor] = link.split('#');
      const target = file ? path.join(ROOT, path.dirname(page), file) : path.join(ROOT, page);
      expect(existsSync(target), link).toBe(true);
      if (anchor) expect(anchorsOf(target), link).toContain(anchor);
    }
  });
});
