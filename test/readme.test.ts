// The README is a newcomer's page (issue 51: "at most 15 KB"): what the service is, the two commands, a first
// tour, configuration at a glance, and links; reference material lives in docs/. Its links must lead somewhere.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config.ts';

const readme = fs.readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');

it('stays at most 15 KB', () => {
  expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(15_000);
});

it('links only to files and headings that exist', () => {
  const slug = (heading: string) => heading.toLowerCase().replace(/[^\w\- ]/g, '').replaceAll(' ', '-');
  for (const [, target] of readme.matchAll(/\]\(((?!https?:)[^)]+)\)/g)) {
    const [file, anchor] = target!.split('#');
    const full = path.join(PROJECT_ROOT, file!);
    expect(fs.existsSync(full), target).toBe(true);
    if (anchor && file!.endsWith('.md')) {
      const headings = [...fs.readFileSync(full, 'utf8').matchAll(/^#+ (.+)$/gm)].map(([, heading]) => slug(heading!));
      expect(headings, target).toContain(anchor);
    }
  }
});

it('says, where it gives `npm install`, that an older system Node makes it warn EBADENGINE (issue 52)', () => {
  const start = readme.slice(readme.indexOf('## Start'), readme.indexOf('## Explore in a browser'));
  expect(start).toContain('npm install');
  expect(start).toMatch(/older system Node, `npm install` warns `EBADENGINE`/);
});

it('runs the simulated data plane against the gateway it names (GATEWAY_URL), in every command that starts it', () => {
  const commands = readme.split('\n').filter((line) => /^\s*(\S+=\S+\s+)*npm run example:data-plane/.test(line.replace(/^.*?: /, '')));
  expect(commands.length).toBeGreaterThanOrEqual(2);
  for (const command of commands) expect(command, command).toMatch(/GATEWAY_URL=http/);
});
