// What a newcomer does on the two pages for people, step by step in a real browser: run GraphiQL's example
// query, and its example mutations in the second tab; authorize /docs with a key and "Try it out" on
// GET /v2/deployments and POST /v2/deployments. Shared by the browser tests and `npm run screenshots`.
import type { Locator, Page } from 'playwright-core';

/** Monaco draws spaces as no-break spaces. */
const text = async (locator: Locator) => (await locator.innerText()).replaceAll('\u00a0', ' ');

export interface GraphiqlResult {
  /** What the result pane shows (its visible lines: Monaco draws only those). */
  resultPane: string;
  /** What the headers editor shows. */
  headersEditor: string;
}

/** Opens `url` (GraphiQL, or `/`, which leads there), waits for the editor, runs the query it opens with. */
export async function runExampleQuery(page: Page, url: string): Promise<GraphiqlResult> {
  await page.goto(url);
  await page.locator('.graphiql-query-editor .monaco-editor').waitFor();
  // The service always fills in the header's name, with the demo key or empty.
  const headers = page.locator('.graphiql-editor-tool .monaco-editor').last();
  await headers.getByText('X-Api-Key').waitFor();
  const headersEditor = await text(headers);
  await page.getByRole('button', { name: /Execute query/ }).click();
  const resultPane = page.locator('.graphiql-response');
  await resultPane.getByText(/^"(data|errors)"/).first().waitFor();
  return { resultPane: await text(resultPane), headersEditor };
}

export interface TryItOutResult {
  /** The status in Swagger UI's response table. */
  status: string;
  /** The response body it shows. */
  body: string;
}

/** Opens /docs and authorizes with `apiKey` (X-Api-Key). */
async function openDocsAuthorized(page: Page, baseUrl: string, apiKey: string): Promise<void> {
  await page.goto(`${baseUrl}/docs`);
  await page.getByRole('button', { name: 'Authorize' }).first().click();
  const apiKeyForm = page.locator('.modal-ux .auth-container').filter({ hasText: 'APIKeyHeader' });
  await apiKeyForm.locator('input').fill(apiKey);
  await apiKeyForm.getByRole('button', { name: 'Apply credentials' }).click();
  await apiKeyForm.getByRole('button', { name: 'Close' }).click();
}

/** Opens /docs, authorizes with `apiKey` (X-Api-Key), and runs GET /v2/deployments?limit=`limit` with "Try it out". */
export async function tryListDeployments(page: Page, baseUrl: string, apiKey: string, limit: number): Promise<TryItOutResult> {
  await openDocsAuthorized(page, baseUrl, apiKey);

  const operation = page.locator('.opblock-get').filter({ has: page.locator('.opblock-summary-path', { hasText: /^\/v2\/deployments$/ }) });
  await operation.locator('.opblock-summary').click();
  await operation.getByRole('button', { name: 'Try it out' }).click();
  await operation.locator('tr[data-param-name="limit"] input').fill(String(limit));
  await operation.getByRole('button', { name: 'Execute' }).click();
  const response = operation.locator('.live-responses-table tr.response');
  await response.waitFor();
  return { status: await text(response.locator('.response-col_status')), body: await text(response.locator('.response-col_description pre').first()) };
}

/**
 * On GraphiQL (already open), switches to the tab named `tab`, runs its operation `operation` (GraphiQL asks
 * which one when the tab holds several) and waits until the result pane shows `expected`; what the pane shows.
 */
export async function runOperationOfTab(page: Page, tab: string, operation: string, expected: string): Promise<string> {
  await page.getByRole('tab', { name: tab }).click();
  await page.locator('.graphiql-query-editor').getByText(`mutation ${operation}`).waitFor();
  // GraphiQL reads the tab's operations a moment after its text shows, and only then makes Execute a menu of
  // them (`aria-haspopup`); clicked before, it runs what it read last (a busy machine's CI saw it, 2026-11-27).
  await page.locator('button.graphiql-execute-button[aria-haspopup="menu"]').click();
  await page.getByRole('menuitem', { name: operation }).click();
  const resultPane = page.locator('.graphiql-response');
  await resultPane.getByText(expected).first().waitFor();
  return text(resultPane);
}

/** Opens /docs, authorizes with `apiKey`, and runs POST /v2/deployments with "Try it out" and the body it offers. */
export async function tryCreateDeployment(page: Page, baseUrl: string, apiKey: string): Promise<TryItOutResult & { sentBody: string }> {
  await openDocsAuthorized(page, baseUrl, apiKey);

  const operation = page.locator('.opblock-post').filter({ has: page.locator('.opblock-summary-path', { hasText: /^\/v2\/deployments$/ }) });
  await operation.locator('.opblock-summary').click();
  await operation.getByRole('button', { name: 'Try it out' }).click();
  const sentBody = await operation.locator('textarea.body-param__text').inputValue();
  await operation.getByRole('button', { name: 'Execute' }).click();
  const response = operation.locator('.live-responses-table tr.response');
  await response.waitFor();
  return { status: await text(response.locator('.response-col_status')), body: await text(response.locator('.response-col_description pre').first()), sentBody };
}
