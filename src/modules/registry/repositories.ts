// Which repositories of the registry belong to which deployment, and what a token may grant on them. A
// deployment's images live under `<prefix>/<tenant id>/<deployment id>`: push-token answers that path as
// `registry_url` (with the registry's host in front), and the CLI pushes `<registry_url>/<name>:<tag>`, so the
// repository it pushes to is that path or one below it. Ids, not names: a deployment's name can change and be
// reused by another deployment later; its id cannot, and UUIDs are valid repository path components.
import type { RegistryAccess } from './registry-token.ts';

/** Actions a push token may be granted; a data plane's token gets `pull` only. */
export type RegistryAction = 'push' | 'pull';

/** One scope a client asks the token server for: `repository:<name>:<actions>` (the token specification). */
export interface RequestedScope {
  type: string;
  name: string;
  actions: string[];
}

/** The repository path of a deployment's images, without the registry's host. */
export const deploymentRepository = (prefix: string, tenantId: string, deploymentId: string): string =>
  `${prefix}/${tenantId.toLowerCase()}/${deploymentId.toLowerCase()}`;

/** Whether `name` is the deployment's repository path or one below it. */
export const isUnder = (name: string, repository: string): boolean => name === repository || name.startsWith(`${repository}/`);

/**
 * The scopes of a token request: each `scope` parameter, which may itself hold several separated by spaces (as
 * newer clients send them). A repository name has no `:`; the type may carry a class (`repository(plugin)`).
 */
export function parseScopes(values: string[]): RequestedScope[] {
  return values.flatMap((value) => value.split(' ')).filter(Boolean).flatMap((scope) => {
    const first = scope.indexOf(':');
    const last = scope.lastIndexOf(':');
    if (first <= 0 || last === first) return [];
    return [{ type: scope.slice(0, first), name: scope.slice(first + 1, last), actions: scope.slice(last + 1).split(',').filter(Boolean) }];
  });
}

/**
 * What may be granted of `requested` on `repository` and below: repository scopes only, and of their actions
 * only those in `allowed`. Anything else is left out, not refused: the token specification has the token
 * server answer the access it grants, and the registry refuse what the token does not carry.
 */
export function grantedAccess(requested: RequestedScope[], repository: string, allowed: readonly RegistryAction[]): RegistryAccess[] {
  const granted = new Map<string, Set<RegistryAction>>();
  for (const scope of requested) {
    if (scope.type !== 'repository' || !isUnder(scope.name, repository)) continue;
    const actions = scope.actions.filter((action): action is RegistryAction => (allowed as readonly string[]).includes(action));
    if (actions.length === 0) continue;
    const set = granted.get(scope.name) ?? new Set();
    for (const action of actions) set.add(action);
    granted.set(scope.name, set);
  }
  return [...granted].map(([name, actions]) => ({ type: 'repository', name, actions: [...actions].sort() }));
}

/** An image reference that names this registry: its repository and its digest or tag. */
export interface RegistryImage {
  repository: string;
  /** `sha256:<hex>`, or a tag. */
  reference: string;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const REPOSITORY = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;

/**
 * The repository and reference of `imageUri` when its host is `registryHost` (`host[:port]`, compared without
 * case); undefined for an image of another registry. `null` when it names this registry but is not a
 * reference one could pull (no repository, a malformed digest or tag).
 */
export function imageInRegistry(imageUri: string, registryHost: string): RegistryImage | null | undefined {
  const uri = imageUri.replace(/^[a-z]+:\/\//i, '');
  const slash = uri.indexOf('/');
  if (slash === -1 || uri.slice(0, slash).toLowerCase() !== registryHost.toLowerCase()) return undefined;
  const rest = uri.slice(slash + 1);
  const at = rest.indexOf('@');
  let repository: string;
  let reference: string;
  if (at !== -1) {
    // `name:tag@digest` pulls by the digest; the tag is only a label.
    repository = rest.slice(0, at).replace(/:[^/]*$/, '');
    reference = rest.slice(at + 1);
    if (!DIGEST.test(reference)) return null;
  } else {
    const colon = rest.lastIndexOf(':');
    repository = colon === -1 ? rest : rest.slice(0, colon);
    reference = colon === -1 ? 'latest' : rest.slice(colon + 1);
    if (!TAG.test(reference)) return null;
  }
  return REPOSITORY.test(repository) ? { repository, reference } : null;
}
