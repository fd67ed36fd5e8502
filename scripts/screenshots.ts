// `npm run screenshots`: the pictures the README and docs show (docs/img/graphiql.png, docs/img/api-docs.png), taken
// of what a newcomer sees: the service started as `npm start` starts it (embedded PostgreSQL, demo data), in
// the system Chromium (apt-get install -y chromium), with no request allowed to leave the machine.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/config.ts';
import { CHROMIUM_PATH, chromiumFound, launchChromium, watchRequests } from '../test/support/chromium.ts';
import { runExampleQuery } from '../test/support/page-flows.ts';
import { startService } from '../test/support/service-process.ts';

const IMAGES = path.join(PROJECT_ROOT, 'docs', 'img');

async function main(): Promise<void> {
  if (!chromiumFound()) throw new Error(`no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium, or set CHROMIUM_PATH)`);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'dmg-screenshots-'));
  const service = await startService({ DATA_DIR: dataDir });
  const browser = await launchChromium();
  try {
    const origin = new URL(service.url).origin;
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(20_000);
    const requests = await watchRequests(context);
    const page = await context.newPage();
    await fs.mkdir(IMAGES, { recursive: true });

    await runExampleQuery(page, `${origin}/graphql`);
    await page.screenshot({ path: path.join(IMAGES, 'graphiql.png') });

    await page.goto(`${origin}/docs`);
    await page.locator('.opblock').last().waitFor();
    await page.screenshot({ path: path.join(IMAGES, 'api-docs.png') });

    if (requests.offHost.length > 0 || requests.errors.length > 0) {
      throw new Error(`the pages asked for other hosts ${JSON.stringify(requests.offHost)} or logged errors ${JSON.stringify(requests.errors)}`);
    }
    console.log(`wrote ${path.relative(PROJECT_ROOT, path.join(IMAGES, 'graphiql.png'))} and ${path.relative(PROJECT_ROOT, path.join(IMAGES, 'api-docs.png'))}`);
  } finally {
    await browser.close();
    await service.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`screenshots: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
