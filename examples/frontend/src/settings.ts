// Where the gateway is and how to reach it, from the environment, with defaults that fit `npm start` in the
// gateway's folder (its demo key is kept in .data/demo-api-key).
import { readFileSync } from 'node:fs';

export interface Settings {
  /** GRAPHQL_URL: the gateway's GraphQL endpoint. */
  url: string;
  /** API_KEY: the key every request carries (X-Api-Key). */
  apiKey: string;
  /** TRUSTED_DOCUMENTS=allow|require: send each operation's id, not its text, as a production frontend does. */
  sendDocumentIds: boolean;
}

const DEMO_KEY_FILE = new URL('../../../.data/demo-api-key', import.meta.url);

export function readSettings(env: Record<string, string | undefined> = process.env): Settings {
  const trusted = env.TRUSTED_DOCUMENTS?.trim().toLowerCase() || 'off';
  if (!['off', 'allow', 'require'].includes(trusted)) throw new Error(`TRUSTED_DOCUMENTS must be off, allow or require (got "${trusted}")`);
  return { url: env.GRAPHQL_URL?.trim() || 'http://localhost:4000/graphql', apiKey: env.API_KEY?.trim() || demoKey(), sendDocumentIds: trusted !== 'off' };
}

function demoKey(): string {
  try {
    return readFileSync(DEMO_KEY_FILE, 'utf8').trim();
  } catch {
    throw new Error('No API key: set API_KEY, or start the gateway with `npm start` (it keeps its demo key in .data/demo-api-key)');
  }
}
