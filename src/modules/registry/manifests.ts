// Asking the registry whether an image is there: `HEAD /v2/<repository>/manifests/<reference>` (the distribution
// API), with a pull token the service signs for itself. Every outcome is an answer, never an exception: the
// PATCH that names the image turns a missing one into a 422 its sender can act on.

/** The manifest media types a registry may hold an image as; the registry answers 404 for one it would not serve. */
export const MANIFEST_TYPES = [
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
].join(', ');

/** A registry that does not answer within this is reported as not answering (the PATCH waits for it). */
const MANIFEST_CHECK_MS = 5_000;

export type ManifestCheck = { found: true; digest: string | null } | { found: false; problem: string };

export async function checkManifest(registryUrl: string, repository: string, reference: string, bearer: string): Promise<ManifestCheck> {
  const where = `${new URL(registryUrl).host}/${repository}${reference.startsWith('sha256:') ? '@' : ':'}${reference}`;
  let response: Response;
  try {
    response = await fetch(`${registryUrl}/v2/${repository}/manifests/${reference}`, {
      method: 'HEAD', headers: { accept: MANIFEST_TYPES, authorization: `Bearer ${bearer}` }, signal: AbortSignal.timeout(MANIFEST_CHECK_MS),
    });
  } catch (error) {
    return { found: false, problem: `the registry did not answer whether ${where} exists (${(error as Error).message}); try again` };
  }
  if (response.ok) return { found: true, digest: response.headers.get('docker-content-digest') };
  if (response.status === 404) return { found: false, problem: `${where} is not in the registry: push the image first (with the token of POST …/push-token)` };
  // 401 or 403: the registry does not trust the service's signature (a key or service name configured wrongly).
  return { found: false, problem: `the registry answered ${response.status} when asked whether ${where} exists; try again, or ask the operator to check the registry's token configuration` };
}
