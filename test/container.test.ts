// The container recipe (Dockerfile) against what the tests verify: the same start command, and an install
// without dev dependencies that still has everything the service imports.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config.ts';

const read = (file: string) => fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8');
const packageJson = JSON.parse(read('package.json')) as { scripts: Record<string, string>; dependencies: Record<string, string> };

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(PROJECT_ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(path.join(dir, entry.name)) : /\.(ts|js)$/.test(entry.name) ? [path.join(dir, entry.name)] : []);
}

describe('the container recipe', () => {
  const dockerfile = read('Dockerfile');

  it('starts the service with npm start, which runs what the process tests and test:scale run', () => {
    expect(/^CMD (.+)$/m.exec(dockerfile)?.[1]).toBe('["npm", "start"]');
    expect(packageJson.scripts.start).toBe('exec node src/main.ts');
    expect(read('test/support/service-process.ts')).toMatch(/runNode\('src\/main\.ts'/);
    // Production settings, listening beyond the container's loopback.
    expect(dockerfile).toMatch(/NODE_ENV=production/);
    expect(dockerfile).toMatch(/HOST=0\.0\.0\.0/);
  });

  it('installs without dev dependencies, and every package the service imports is a production dependency', () => {
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    const imported = new Set<string>();
    for (const file of sourceFiles('src')) {
      // Type-only imports vanish when Node strips the types.
      for (const [, specifier] of read(file).matchAll(/^(?!import type)[^\n]*?(?:from |import\()'([^'.][^']*)'/gm)) {
        if (specifier!.startsWith('node:')) continue;
        imported.add(specifier!.startsWith('@') ? specifier!.split('/').slice(0, 2).join('/') : specifier!.split('/')[0]!);
      }
    }
    expect(imported.size).toBeGreaterThan(20);
    const missing = [...imported].filter((name) => !(name in packageJson.dependencies));
    expect(missing).toEqual([]);
  });

  it('copies what the service reads at run time', () => {
    for (const needed of ['src', 'migrations']) expect(dockerfile).toMatch(new RegExp(`^COPY ${needed} `, 'm'));
  });
});
