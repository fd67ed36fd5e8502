// The /docs page: Swagger UI (from swagger-ui-dist, served by this service, see static-assets.ts) rendering
// the OpenAPI document, as FastAPI serves it.
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { jsonDataBlock } from './html.ts';
import { hashedAsset, once, withoutSourceMapComment, type StaticAsset } from './static-assets.ts';

const JAVASCRIPT = 'text/javascript; charset=utf-8';

export interface SwaggerUiAssets extends Record<string, StaticAsset> {
  bundle: StaticAsset;
  stylesheet: StaticAsset;
  icon: StaticAsset;
  start: StaticAsset;
}

const distFile = (name: string) =>
  path.join(path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json')), name);
const distText = async (name: string) => withoutSourceMapComment(await fs.readFile(distFile(name), 'utf8'));

export const loadSwaggerUiAssets = once(async (): Promise<SwaggerUiAssets> => ({
  bundle: hashedAsset('swagger-ui-bundle', 'js', JAVASCRIPT, await distText('swagger-ui-bundle.js')),
  stylesheet: hashedAsset('swagger-ui', 'css', 'text/css; charset=utf-8', await distText('swagger-ui.css')),
  icon: hashedAsset('swagger-ui-icon', 'png', 'image/png', await fs.readFile(distFile('favicon-32x32.png'))),
  start: hashedAsset('swagger-ui-start', 'js', JAVASCRIPT, await fs.readFile(new URL('./swagger-ui-start.browser.js', import.meta.url))),
}));

export async function swaggerUiPage(specUrl: string): Promise<string> {
  const assets = await loadSwaggerUiAssets();
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Deployments gateway - Swagger UI</title>
<link rel="icon" type="image/png" href="${assets.icon.path}">
<link rel="stylesheet" href="${assets.stylesheet.path}">
</head>
<body>
<div id="swagger-ui"></div>
${jsonDataBlock('swagger-ui-page', { specUrl })}
<script src="${assets.bundle.path}"></script>
<script src="${assets.start.path}"></script>
</body>
</html>
`;
}
