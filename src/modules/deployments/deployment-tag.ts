// A deployment's entity tag (docs/decisions.md#etags-and-if-match): one tag for its representation, whichever
// answer carries it (GET /v2/deployments/{id}, the answers of POST, PATCH and redeploy, a 412, GraphQL's
// `Deployment.etag`), so that a client may keep a write's answer and revalidate it later.
import { createHash } from 'node:crypto';
import { buildFingerprint } from '../../runner/build-fingerprint.ts';
import type { Principal } from '../tenancy/authenticate.ts';

/** 96 bits of SHA-256, in hex: no two answers a client could hold share one. */
export const tagHash = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 24);

/**
 * Who reads, as far as an answer's bytes depend on it: the key, its tenant, its permissions, and for a key that
 * reveals secrets the secrets keys the process holds (a value it cannot decrypt reads otherwise).
 */
export function answerReader(principal: Principal, secretsKeys: readonly string[]): string {
  return `${principal.apiKeyId} ${principal.tenantId} ${principal.mayReadSecrets ? `secrets ${secretsKeys.join(',')}` : 'masked'} ${principal.mayWrite} ${principal.mayReconcile}`;
}

/**
 * `"<version>[-masked]-<hash>"`: the version (bumped by a trigger on every change of the row, which every write
 * of the deployment makes) that If-Match reads, `-masked` for a key that may not read secrets (another body),
 * and a hash of the build, the reader, the deployment and its version, which If-None-Match compares. The answer's content
 * coding is added where the answer is sent (runner/entity-tags.ts, inCoding).
 */
export function deploymentTag(id: string, version: number, principal: Principal, secretsKeys: readonly string[]): string {
  const hash = tagHash(`${buildFingerprint()}\n${answerReader(principal, secretsKeys)}\ndeployment ${id.toLowerCase()} ${version}`);
  return `"${version}${principal.mayReadSecrets ? '' : '-masked'}-${hash}"`;
}

/** The tag `reader` sees: with the secrets keys the process holds for a key that may read secrets (none otherwise). */
export function deploymentTagFor(reader: { principal: Principal; cipher: { fingerprints: readonly string[] } }, id: string, version: number): string {
  return deploymentTag(id, version, reader.principal, reader.principal.mayReadSecrets ? reader.cipher.fingerprints : []);
}
