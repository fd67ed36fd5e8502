// The manifest of trusted documents (TRUSTED_DOCUMENTS_MANIFEST): a JSON object of document id → document, as
// @graphql-codegen/client-preset writes it (persisted-documents.json). It is read once, at start-up, and every
// document in it is checked against the schema, so that a stale manifest stops the service with one line
// instead of failing a frontend's requests one by one.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { getOperationAST, GraphQLError, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import { ConfigError, PROJECT_ROOT } from '../config.ts';

const VARIABLE = 'TRUSTED_DOCUMENTS_MANIFEST';
/** GraphQL over HTTP's prefixed document id (the client preset's, with its default hashAlgorithm sha256). */
const DOCUMENT_ID = /^sha256:[0-9a-f]{64}$/;
const ERRORS_SHOWN = 3;

/** Document id → document text, every one of them valid against the schema. */
export type TrustedDocumentManifest = ReadonlyMap<string, string>;

export const documentIdOf = (document: string): string => `sha256:${createHash('sha256').update(document).digest('hex')}`;

/** One line: a GraphQL message may span several. */
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ');

export function loadTrustedDocuments(manifestPath: string, schema: GraphQLSchema): TrustedDocumentManifest {
  // As the operator wrote it, roughly: relative to the project when inside it.
  const relative = path.relative(PROJECT_ROOT, manifestPath);
  const shown = relative.startsWith('..') ? manifestPath : relative;
  const refuse = (problem: string) => new ConfigError(VARIABLE, `${shown}: ${problem}`);
  let text: string;
  try {
    text = readFileSync(manifestPath, 'utf8');
  } catch (error) {
    throw refuse(`cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw refuse(`is not JSON (${oneLine((error as Error).message)})`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json) || !Object.values(json).every((value) => typeof value === 'string')) {
    throw refuse('must be a JSON object of document id → document text, such as the client preset\'s persisted-documents.json');
  }
  const entries = Object.entries(json as Record<string, string>);
  if (entries.length === 0) throw refuse('holds no documents');
  for (const [id, document] of entries) checkDocument(id, document, schema, refuse);
  return new Map(entries);
}

function checkDocument(id: string, document: string, schema: GraphQLSchema, refuse: (problem: string) => ConfigError): void {
  if (!DOCUMENT_ID.test(id)) throw refuse(`"${id.slice(0, 80)}" is not a document id of the form sha256:<64 hex digits>`);
  if (documentIdOf(document) !== id) throw refuse(`the document under ${id} does not hash to that id (edited by hand?); regenerate the manifest`);
  let parsed: DocumentNode;
  try {
    parsed = parse(document);
  } catch (error) {
    throw refuse(`document ${id} does not parse: ${oneLine((error as GraphQLError).message)}`);
  }
  const operation = getOperationAST(parsed);
  const name = operation?.name ? `${operation.name.value} (${id})` : id;
  const errors = validate(schema, parsed);
  if (errors.length > 0) {
    const reasons = errors.slice(0, ERRORS_SHOWN).map((error) => oneLine(error.message));
    if (errors.length > ERRORS_SHOWN) reasons.push(`and ${errors.length - ERRORS_SHOWN} more`);
    throw refuse(`document ${name} does not validate against the schema (regenerate the manifest from the current schema.graphql): ${reasons.join('; ')}`);
  }
  // A document of several operations needs an operationName that a trusted-document request may not carry.
  if (!operation) throw refuse(`document ${id} must hold exactly one operation`);
}
