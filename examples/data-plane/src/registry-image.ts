// What the simulator does with an image pushed to the gateway's registry (the CLI's local build): it reads the
// image's manifest from the registry with the lease's pull-only token (`imagePull`), the first step of any pull,
// and reports what it found (the digest, the layers, the image's size) as build log lines, or why the image
// cannot be pulled (then the revision ends BUILD_FAILED). It runs nothing.

/** The lease's `imagePull`: a registry token allowing `pull` on one repository. */
export interface ImagePull {
  token: string;
  /** The registry's address, `https://…`. */
  registry: string;
  repository: string;
  /** A digest (`sha256:…`) or a tag. */
  reference: string;
  expiresAt: string;
}

export interface ImageInspection {
  lines: string[];
  failure: string | null;
  /** The config's and the layers' sizes together, in bytes, when the manifest was read. */
  sizeBytes?: number;
}

const ACCEPT = [
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
].join(', ');

interface Descriptor { mediaType?: string; digest: string; size: number }
interface Manifest { mediaType?: string; config?: Descriptor; layers?: Descriptor[]; manifests?: Descriptor[] }

const sizeOf = (bytes: number) => (bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`);

/** Reads the image's manifest with the pull token. Never throws for an image that cannot be pulled: the failure is in the answer. */
export async function inspectRegistryImage(pull: ImagePull, signal?: AbortSignal): Promise<ImageInspection> {
  const where = `${new URL(pull.registry).host}/${pull.repository}${pull.reference.startsWith('sha256:') ? '@' : ':'}${pull.reference}`;
  let response: Response;
  try {
    response = await fetch(`${pull.registry}/v2/${pull.repository}/manifests/${pull.reference}`, {
      headers: { accept: ACCEPT, authorization: `Bearer ${pull.token}` }, signal: signal ?? AbortSignal.timeout(30_000),
    });
  } catch (error) {
    return { lines: [`pulling ${where}`], failure: `the registry did not answer (${(error as Error).message})` };
  }
  if (!response.ok) return { lines: [`pulling ${where}`], failure: `the registry refused the manifest: ${response.status} ${(await response.text()).slice(0, 200).trim()}` };
  const manifest = await response.json() as Manifest;
  const digest = response.headers.get('docker-content-digest') ?? pull.reference;
  if (manifest.manifests) {
    const total = manifest.manifests.reduce((sum, entry) => sum + entry.size, 0);
    return { lines: [`pulling ${where}`, `an index of ${manifest.manifests.length} platform manifests (${total} bytes of manifests), digest ${digest}`], failure: null };
  }
  const layers = manifest.layers ?? [];
  const sizeBytes = (manifest.config?.size ?? 0) + layers.reduce((sum, layer) => sum + layer.size, 0);
  return {
    lines: [`pulling ${where}`, `manifest ${digest}: ${layers.length} layer(s); image size ${sizeBytes} bytes (${sizeOf(sizeBytes)})`],
    failure: null,
    sizeBytes,
  };
}
