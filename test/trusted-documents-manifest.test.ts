// The manifest of trusted documents is checked whole at start-up: a file that is missing, not JSON, not a map
// of id → document, or holds a document that no longer validates against the schema stops the service with one
// line naming TRUSTED_DOCUMENTS_MANIFEST, before it opens the database.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, PROJECT_ROOT } from '../src/config.ts';
import { schema } from '../src/graphql/schema.ts';
import { documentIdOf, loadTrustedDocuments } from '../src/graphql/trusted-documents.ts';

const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'trusted-documents-'));
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

let files = 0;
function manifestFile(content: unknown): string {
  const file = path.join(directory, `manifest-${files++}.json`);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}
const manifestOf = (...documents: string[]) => Object.fromEntries(documents.map((document) => [documentIdOf(document), document]));

const VALID = 'query TenantName { tenant { name } }';
// A field the schema does not have: what a manifest built before a field was removed holds.
const STALE = 'query DeploymentColour { deployments { resources { name colour } } }';

describe('loading the manifest', () => {
  it('reads the documents of a manifest by id', () => {
    const manifest = loadTrustedDocuments(manifestFile(manifestOf(VALID)), schema);
    expect([...manifest]).toEqual([[documentIdOf(VALID), VALID]]);
    expect(documentIdOf(VALID)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it.each([
    ['a missing file', () => path.join(directory, 'missing.json'), /missing\.json: cannot be read \(ENOENT\)$/],
    ['malformed JSON', () => manifestFile('{"sha256:'), /: is not JSON \(.+\)$/],
    ['an array', () => manifestFile([VALID]), /: must be a JSON object of document id → document text/],
    ['a value that is not a string', () => manifestFile({ [documentIdOf(VALID)]: { query: VALID } }), /: must be a JSON object of document id → document text/],
    ['no documents', () => manifestFile({}), /: holds no documents$/],
    ['an id of another form', () => manifestFile({ TenantName: VALID }), /: "TenantName" is not a document id of the form sha256:<64 hex digits>$/],
    ['a document edited after it was hashed', () => manifestFile({ [documentIdOf(VALID)]: `${VALID} ` }), /: the document under sha256:[0-9a-f]{64} does not hash to that id/],
    ['a document that does not parse', () => manifestFile(manifestOf('query { tenant {')), /: document sha256:[0-9a-f]{64} does not parse: Syntax Error: Expected Name, found <EOF>\.$/],
    ['a document the schema no longer validates', () => manifestFile(manifestOf(VALID, STALE)),
      /: document DeploymentColour \(sha256:[0-9a-f]{64}\) does not validate against the schema \(regenerate the manifest from the current schema\.graphql\): Cannot query field "colour" on type "Deployment"\.$/],
    ['a document of two operations', () => manifestFile(manifestOf(`${VALID} query Other { tenant { id } }`)), /: document sha256:[0-9a-f]{64} must hold exactly one operation$/],
  ])('refuses %s with one line naming the variable', (_case, file, problem) => {
    let error: unknown;
    try {
      loadTrustedDocuments(file(), schema);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/^Invalid configuration: TRUSTED_DOCUMENTS_MANIFEST /);
    expect(message).toMatch(problem);
    expect(message).not.toContain('\n');
  });
});

describe('starting the service', () => {
  it('stops with one line, before opening the database, when a document no longer validates', () => {
    const file = manifestFile(manifestOf(VALID, STALE));
    const result = spawnSync(process.execPath, ['src/main.ts'], {
      cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 30_000,
      // A database URL nothing listens on: reaching it would fail differently, and later.
      env: { ...process.env, TRUSTED_DOCUMENTS: 'require', TRUSTED_DOCUMENTS_MANIFEST: file, DATABASE_URL: 'postgres://127.0.0.1:1/none', SECRETS_KEY: Buffer.alloc(32, 1).toString('base64') },
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(
      /^Invalid configuration: TRUSTED_DOCUMENTS_MANIFEST .+manifest-\d+\.json: document DeploymentColour \(sha256:[0-9a-f]{64}\) does not validate against the schema/,
    )]);
  });
});
