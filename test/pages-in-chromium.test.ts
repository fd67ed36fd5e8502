// GraphiQL and the API docs as a person sees them: the system Chromium opens the pages the service serves and
// does what a newcomer does on them, while every request that would leave the machine is refused (as on an
// air-gapped cluster) and fails the test. Skipped, with one line saying so, where no Chromium is installed;
// CI installs it and sets REQUIRE_BROWSER_TESTS=1, under which a missing Chromium fails instead.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_MUTATION_VARIABLES, EXAMPLE_QUERY } from '../src/graphql/graphiql.ts';
import { CHROMIUM_PATH, chromiumFound, launchChromium, watchRequests, type RequestLog } from './support/chromium.ts';
import { startDemoApp, type DemoApp } from './support/demo-app.ts';
import { runExampleQuery, runOperationOfTab, tryCreateDeployment, tryListDeployments } from './support/page-flows.ts';

const required = process.env.REQUIRE_BROWSER_TESTS === '1';
const skipped = !chromiumFound() && !required;
const BROWSER_TEST_TIMEOUT_MS = 60_000;
if (skipped) console.warn(`Browser tests skipped: no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium; CI requires them)`);

describe.skipIf(skipped)('the pages in a real browser', () => {
  let demo: DemoApp;
  let browser: Browser;

  beforeAll(async () => {
    if (!chromiumFound()) throw new Error(`REQUIRE_BROWSER_TESTS=1, and there is no Chromium at ${CHROMIUM_PATH}`);
    [demo, browser] = await Promise.all([startDemoApp(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await demo?.close();
  });

  /**
   * Runs `steps` on a page of a fresh browser profile, then checks that no request would have left the machine
   * and that no page logged an error (a refused load or a Content-Security-Policy violation shows as one). A
   * step that failed is reported with both lists: a page that waited for the internet fails on a step.
   */
  async function inBrowser(steps: (page: Page) => Promise<void>): Promise<void> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    // Generous: the suite runs files in parallel, and GraphiQL is 9 MB of JavaScript to start.
    context.setDefaultTimeout(20_000);
    const requests: RequestLog = await watchRequests(context);
    try {
      await steps(await context.newPage());
    } catch (error) {
      if (error instanceof Error) error.message += `\nrefused requests: ${JSON.stringify(requests.offHost)}\nconsole errors: ${JSON.stringify(requests.errors)}`;
      throw error;
    } finally {
      await context.close();
    }
    expect(requests.offHost, 'requests that would have left the machine').toEqual([]);
    expect(requests.errors, 'console errors').toEqual([]);
    expect(requests.requested.filter((url) => new URL(url).pathname.startsWith('/assets/')).length).toBeGreaterThan(0);
  }

  it('/ opens GraphiQL, which runs its example query with the demo key and shows deployments, keeps it in its history, and documents the schema', async () => {
    const expected = (await demo.app.graphql(EXAMPLE_QUERY, { 'X-Api-Key': demo.key })).body.data;
    expect(expected.deployments.resources.length).toBeGreaterThan(0);

    await inBrowser(async (page) => {
      const { resultPane, headersEditor } = await runExampleQuery(page, `${demo.app.url}/`);
      expect(new URL(page.url()).pathname).toBe('/graphql');
      expect(headersEditor).toContain(demo.key);
      expect(resultPane).toContain(`"totalCount": ${expected.deployments.totalCount}`);
      expect(resultPane).toContain(`"name": "${expected.deployments.resources[0].name}"`);

      expect(await page.getByRole('tab').allInnerTexts()).toEqual(['NewestDeployments', 'CreateDeployment']);

      await page.getByRole('button', { name: 'Show History' }).click();
      expect(await page.locator('.graphiql-history-item').allInnerTexts()).toEqual(['NewestDeployments']);

      await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
      await page.locator('.graphiql-doc-explorer').getByRole('link', { name: 'Query', exact: true }).click();
      await page.locator('.graphiql-doc-explorer').getByText('deployments', { exact: true }).waitFor();
    });
  }, BROWSER_TEST_TIMEOUT_MS);

  it('GraphiQL\'s second tab creates a deployment with the demo key, then answers that the name is taken', async () => {
    const { name } = JSON.parse(EXAMPLE_MUTATION_VARIABLES).create;
    await inBrowser(async (page) => {
      await runExampleQuery(page, `${demo.app.url}/graphql`);
      const created = await runOperationOfTab(page, 'CreateDeployment', 'CreateDeployment', '"CreateDeploymentPayload"');
      expect(created).toContain(`"name": "${name}"`);
      expect(created).toContain('"status": "QUEUED"');
      const again = await runOperationOfTab(page, 'CreateDeployment', 'CreateDeployment', '"DeploymentNameTakenError"');
      // The pane wraps long lines.
      expect(again.replace(/\s+/g, ' ')).toContain(`"message": "A deployment named \\"${name}\\" already exists."`);
    });
    const listed = await demo.app.graphql(`{ deployments(filter: { nameContains: "${name}" }) { resources { name status } } }`, { 'X-Api-Key': demo.key });
    expect(listed.body.data.deployments.resources).toEqual([{ name, status: 'AWAITING_DATABASE' }]);
  }, BROWSER_TEST_TIMEOUT_MS);

  it('/docs: "Try it out" on GET /v2/deployments?limit=3, authorized with the key, shows 200 and the deployments', async () => {
    const expected = await (await fetch(`${demo.app.url}/v2/deployments?limit=3&offset=0`, { headers: { 'X-Api-Key': demo.key } })).json();
    expect(expected.resources).toHaveLength(3);
    await inBrowser(async (page) => {
      const { status, body } = await tryListDeployments(page, demo.app.url, demo.key, 3);
      expect(status).toBe('200');
      expect(JSON.parse(body)).toEqual(expected);
    });
  }, BROWSER_TEST_TIMEOUT_MS);

  it('/docs: "Try it out" on POST /v2/deployments, with the body it offers and the demo key, creates the deployment (201)', async () => {
    await inBrowser(async (page) => {
      const { status, body, sentBody } = await tryCreateDeployment(page, demo.app.url, demo.key);
      expect(status).toBe('201');
      const created = JSON.parse(body);
      expect(created).toMatchObject({ ...JSON.parse(sentBody), status: 'AWAITING_DATABASE', latest_revision_id: expect.any(String) });
      const read = await fetch(`${demo.app.url}/v2/deployments/${created.id}`, { headers: { 'X-Api-Key': demo.key } });
      expect(await read.json()).toEqual(created);
    });
  }, BROWSER_TEST_TIMEOUT_MS);
});
