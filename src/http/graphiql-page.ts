// The GraphiQL page at /graphql, from Yoga's offline renderer (@graphql-yoga/render-graphiql): its bundle,
// stylesheet, editor workers and icon, served as separate assets (cached by browsers, see static-assets.ts)
// rather than inlined into a 9 MB page on every visit. The markup follows the renderer's own page.
import fs from 'node:fs/promises';
import type { GraphiQLOptions } from 'graphql-yoga';
import { escapeHtml, jsonDataBlock } from './html.ts';
import { hashedAsset, once, type StaticAsset } from './static-assets.ts';

const JAVASCRIPT = 'text/javascript; charset=utf-8';

export interface GraphiqlAssets extends Record<string, StaticAsset> {
  bundle: StaticAsset;
  stylesheet: StaticAsset;
  icon: StaticAsset;
  start: StaticAsset;
  editorWorker: StaticAsset;
  jsonWorker: StaticAsset;
  graphqlWorker: StaticAsset;
}

/**
 * Yoga's GraphiQL hands GraphiQL one plugin, its query builder, and that list replaces GraphiQL's default one,
 * the history: without this, GraphiQL has no history. The bundle is minified, so the two places are found by
 * their shape; a renderer version where they no longer match fails here, loudly, instead of losing the history.
 */
export function withHistoryPlugin(bundle: string): string {
  const history = [...bundle.matchAll(/\bconst ([\w$]+)=\{title:"History",icon:[\w$]+,content:[\w$]+\}/g)];
  const plugins = [...bundle.matchAll(/\bplugins:\[([\w$]+)\],schemaDescription:!0/g)];
  if (history.length !== 1 || plugins.length !== 1) {
    throw new Error('@graphql-yoga/render-graphiql: cannot add the history plugin to this version of its GraphiQL bundle');
  }
  const [whole, explorer] = plugins[0]!;
  return bundle.replace(whole, () => `plugins:[${history[0]![1]},${explorer}],schemaDescription:!0`);
}

/** The renderer's parts, read on first use: the module is 9 MB of JavaScript, which takes a while to load. */
export const loadGraphiqlAssets = once(async (): Promise<GraphiqlAssets> => {
  const renderer = await import('@graphql-yoga/render-graphiql/graphiql');
  const icon = /^data:([^;]+);base64,(.*)$/s.exec(renderer.favicon);
  if (!icon) throw new Error('@graphql-yoga/render-graphiql: its favicon is no longer a base64 data URL');
  return {
    bundle: hashedAsset('graphiql', 'js', JAVASCRIPT, withHistoryPlugin(renderer.js)),
    stylesheet: hashedAsset('graphiql', 'css', 'text/css; charset=utf-8', renderer.css),
    icon: hashedAsset('graphiql-icon', 'ico', icon[1]!, Buffer.from(icon[2]!, 'base64')),
    start: hashedAsset('graphiql-start', 'js', JAVASCRIPT, await fs.readFile(new URL('./graphiql-start.browser.js', import.meta.url))),
    editorWorker: hashedAsset('graphiql-editor-worker', 'js', JAVASCRIPT, renderer.editorWorkerService),
    jsonWorker: hashedAsset('graphiql-json-worker', 'js', JAVASCRIPT, renderer.jsonWorker),
    graphqlWorker: hashedAsset('graphiql-graphql-worker', 'js', JAVASCRIPT, renderer.graphqlWorker),
  };
});

/** Yoga's `renderGraphiQL`: the page for `options` (what graphiql.ts sets, plus Yoga's own). */
export async function renderGraphiqlPage(options: GraphiQLOptions): Promise<string> {
  const assets = await loadGraphiqlAssets();
  // The labels are the ones the editor asks its MonacoEnvironment for.
  const workers = { editorWorkerService: assets.editorWorker.path, json: assets.jsonWorker.path, graphql: assets.graphqlWorker.path };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(options.title ?? 'GraphiQL')}</title>
<link rel="icon" href="${assets.icon.path}">
<link rel="stylesheet" href="${assets.stylesheet.path}">
</head>
<body id="body" class="no-focus-outline">
<noscript>You need to enable JavaScript to run this app.</noscript>
<div id="root"></div>
${jsonDataBlock('graphiql-page', { options, workers })}
<script src="${assets.bundle.path}"></script>
<script src="${assets.start.path}"></script>
</body>
</html>
`;
}
