// Helpers for the service's few HTML pages (GraphiQL, Swagger UI).

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * A JSON data block (`<script type="application/json">`): data for a page's script without an inline script,
 * which the Content-Security-Policy forbids. `<` is escaped so that no value can close the element.
 */
export function jsonDataBlock(id: string, value: unknown): string {
  return `<script type="application/json" id="${escapeHtml(id)}">${JSON.stringify(value).replaceAll('<', '\\u003c')}</script>`;
}
