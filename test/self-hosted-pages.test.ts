// The pages for people over HTTP: GraphiQL and /docs load only what this service serves (no CDN: they work
// without internet), under a Content-Security-Policy that allows no other origin, with assets browsers may
// cache forever; GraphiQL opens with the demo key only in demo mode; `/` sends a browser to GraphiQL and
// tells any other client where the API is. What a browser really requests is in pages-in-chromium.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_MUTATION_VARIABLES, EXAMPLE_MUTATIONS, EXAMPLE_QUERY } from '../src/graphql/graphiql.ts';
import type { RunningApp } from './support/app-server.ts';
import { startDemoApp, type DemoApp } from './support/demo-app.ts';

const HASHED_ASSET = /^\/assets\/[a-z-]+\.[0-9a-f]{16}\.(js|css|ico|png)$/;
const CONTENT_TYPES: Record<string, RegExp> = { js: /^text\/javascript/, css: /^text\/css/, ico: /^image\//, png: /^image\/png$/ };

const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

/** The page's `src` and `href` URLs, and the text of its scripts that have no `src`. */
function referencesOf(page: string) {
  return {
    urls: [...page.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]!),
    inlineScripts: [...page.matchAll(/<script(?![^>]*\ssrc=)([^>]*)>/g)].map((m) => m[1]!),
  };
}

/** The JSON a page hands its script (`<script type="application/json" id=...>`). */
function dataBlock(page: string, id: string): any {
  const found = new RegExp(`<script type="application/json" id="${id}">(.*?)</script>`, 's').exec(page);
  expect(found, `data block #${id}`).not.toBeNull();
  return JSON.parse(found![1]!);
}

describe('pages for people', () => {
  let demo: DemoApp;
  let withoutDemoKey: RunningApp;
  let withoutGraphiql: RunningApp;

  beforeAll(async () => {
    demo = await startDemoApp();
    withoutDemoKey = await demo.startAnother({});
    withoutGraphiql = await demo.startAnother({ graphiql: false });
  });
  afterAll(async () => {
    await demo?.close();
  });

  describe.each([['GraphiQL', '/graphql'], ['the API docs', '/docs']])('%s (%s)', (_name, path) => {
    it('references only assets of this service, by URLs that change with their content, and runs no inline script', async () => {
      const response = await fetch(`${demo.app.url}${path}`, { headers: html });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      const { urls, inlineScripts } = referencesOf(await response.text());
      expect(urls.length).toBeGreaterThanOrEqual(3);
      for (const url of urls) expect(url).toMatch(HASHED_ASSET);
      // Only JSON data blocks, which a browser does not run.
      expect(inlineScripts).toEqual([expect.stringMatching(/type="application\/json"/)]);
    });

    it('has a Content-Security-Policy that allows no other origin and no inline script', async () => {
      const response = await fetch(`${demo.app.url}${path}`, { headers: html });
      const policy = Object.fromEntries(response.headers.get('content-security-policy')!.split(/;\s*/).map((d) => {
        const [name, ...sources] = d.split(' ');
        return [name, sources];
      }));
      expect(policy['default-src']).toEqual(["'self'"]);
      expect(policy['script-src']).toEqual(["'self'"]);
      expect(policy['object-src']).toEqual(["'none'"]);
      expect(policy['frame-ancestors']).toEqual(["'none'"]);
      // Every source is this origin, none, or data embedded in the stylesheets: no host, no scheme, no wildcard.
      const sources = new Set(Object.values(policy).flat());
      for (const source of sources) expect(["'self'", "'none'", "'unsafe-inline'", 'data:']).toContain(source);
      expect(policy['style-src']).toEqual(["'self'", "'unsafe-inline'"]);
      expect(response.headers.get('cache-control')).toBe('no-cache');
    });

    it('serves each asset with a long-lived cache and loads nothing from another origin from its stylesheets', async () => {
      const page = await (await fetch(`${demo.app.url}${path}`, { headers: html })).text();
      for (const url of referencesOf(page).urls) {
        const asset = await fetch(`${demo.app.url}${url}`);
        expect(asset.status, url).toBe(200);
        expect(asset.headers.get('cache-control'), url).toBe('public, max-age=31536000, immutable');
        expect(asset.headers.get('content-type'), url).toMatch(CONTENT_TYPES[url.split('.').at(-1)!]!);
        const body = await asset.text();
        expect(body.length, url).toBeGreaterThan(0);
        if (url.endsWith('.css')) {
          expect(body, url).not.toMatch(/@import/);
          const loaded = [...body.matchAll(/url\(\s*["']?([^"')]*)/g)].map((m) => m[1]!);
          expect(loaded.length, url).toBeGreaterThan(0);
          for (const target of loaded) expect(target, url).toMatch(/^(data:|#|\/(?!\/))/);
        }
      }
    });
  });

  it('answers HEAD on an asset without its body, and 404 for an asset it does not have', async () => {
    const page = await (await fetch(`${demo.app.url}/docs`)).text();
    const stylesheet = referencesOf(page).urls.find((url) => url.endsWith('.css'))!;
    const head = await fetch(`${demo.app.url}${stylesheet}`, { method: 'HEAD' });
    expect({ status: head.status, length: Number(head.headers.get('content-length')), body: await head.text() })
      .toEqual({ status: 200, length: expect.any(Number), body: '' });
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(1000);
    for (const missing of ['/assets/swagger-ui.css', stylesheet.replace(/[0-9a-f]{16}/, '0'.repeat(16)), '/assets/']) {
      const response = await fetch(`${demo.app.url}${missing}`);
      expect({ status: response.status, body: await response.json() }, missing).toEqual({ status: 404, body: { detail: 'Not Found' } });
    }
  });

  describe('GraphiQL opens with', () => {
    it('the example query and the demo key in its headers, in demo mode', async () => {
      const page = await (await fetch(`${demo.app.url}/graphql`, { headers: html })).text();
      const { options } = dataBlock(page, 'graphiql-page');
      expect(options.defaultQuery).toBe(EXAMPLE_QUERY);
      expect(JSON.parse(options.headers)).toEqual({ 'X-Api-Key': demo.key });
    });

    it('a second tab of example mutations, with their variables and the demo key', async () => {
      const page = await (await fetch(`${demo.app.url}/graphql`, { headers: html })).text();
      const { options } = dataBlock(page, 'graphiql-page');
      expect(options.defaultTabs.map((tab: { query: string }) => tab.query)).toEqual([EXAMPLE_QUERY, EXAMPLE_MUTATIONS]);
      expect(options.defaultTabs[1].variables).toBe(EXAMPLE_MUTATION_VARIABLES);
      for (const tab of options.defaultTabs) expect(JSON.parse(tab.headers)).toEqual({ 'X-Api-Key': demo.key });
    });

    it('example mutations that do what their comments say: CreateDeployment, then ChangeImage with its uuid and etag', async () => {
      const headers = { 'x-api-key': demo.key };
      const variables = JSON.parse(EXAMPLE_MUTATION_VARIABLES);
      // As GraphiQL sends a tab: the whole document, the operation picked, the tab's variables.
      const run = async (operationName: string) => (await fetch(`${demo.app.url}/graphql`, {
        method: 'POST', headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ query: EXAMPLE_MUTATIONS, operationName, variables }),
      })).json();
      const created = await run('CreateDeployment');
      expect(created.data.createDeployment).toMatchObject({ __typename: 'CreateDeploymentPayload', deployment: { name: variables.create.name, latestRevision: { status: 'QUEUED' } } });
      expect((await run('CreateDeployment')).data.createDeployment.__typename).toBe('DeploymentNameTakenError');
      const { uuid, etag, latestRevision } = created.data.createDeployment.deployment;
      variables.change = { ...variables.change, id: uuid, ifMatch: etag };
      const changed = (await run('ChangeImage')).data.updateDeployment;
      expect(changed).toMatchObject({ __typename: 'UpdateDeploymentPayload', deployment: { uuid, latestRevision: { status: 'QUEUED', sourceRevisionConfig: { imageUri: variables.change.sourceRevisionConfig.imageUri } } } });
      expect(changed.deployment.latestRevision.uuid).not.toBe(latestRevision.uuid);
      expect((await run('ChangeImage')).data.updateDeployment).toMatchObject({ __typename: 'PreconditionFailedError', currentEtag: changed.deployment.etag });
    });

    it('the example query, an empty key and a line saying where to put one, otherwise', async () => {
      const page = await (await fetch(`${withoutDemoKey.url}/graphql`, { headers: html })).text();
      const { options } = dataBlock(page, 'graphiql-page');
      expect(options.defaultQuery).toMatch(/^# Put your API key in the Headers tab below/);
      expect(options.defaultQuery).toContain(EXAMPLE_QUERY);
      expect(JSON.parse(options.headers)).toEqual({ 'X-Api-Key': '' });
      expect(page).not.toContain(demo.key);
    });
  });

  describe('/', () => {
    it('sends a browser to GraphiQL', async () => {
      const response = await fetch(`${demo.app.url}/`, { headers: html, redirect: 'manual' });
      expect({ status: response.status, location: response.headers.get('location') }).toEqual({ status: 302, location: '/graphql' });
    });

    it('sends a browser to the API docs when GraphiQL is off', async () => {
      const response = await fetch(`${withoutGraphiql.url}/`, { headers: html, redirect: 'manual' });
      expect({ status: response.status, location: response.headers.get('location') }).toEqual({ status: 302, location: '/docs' });
    });

    it.each([['*/*'], ['application/json']])('tells a client that accepts %s where the API is', async (accept) => {
      const response = await fetch(`${demo.app.url}/`, { headers: { accept } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toMatchObject({ graphql: '/graphql', rest: '/v2/deployments', docs: '/docs', openapi: '/openapi.json' });
    });

    it('answers HEAD like GET without a body, and other methods with 405', async () => {
      const head = await fetch(`${demo.app.url}/`, { method: 'HEAD' });
      expect({ status: head.status, body: await head.text() }).toEqual({ status: 200, body: '' });
      const post = await fetch(`${demo.app.url}/`, { method: 'POST', body: '{}' });
      expect({ status: post.status, allow: post.headers.get('allow') }).toEqual({ status: 405, allow: 'GET, HEAD' });
    });
  });
});
