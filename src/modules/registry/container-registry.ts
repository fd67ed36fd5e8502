// The container registry this service is the token server of (docs/decisions.md#image-pushes). One object holds
// the rules, each in one place:
//   - push-token: a token for one internal_docker deployment, good for PUSH_TOKEN_SECONDS (push-tokens.ts);
//   - the token server: for a good push token, a JWT granting push and pull on that deployment's repository
//     and below, and nothing else that was asked (token-requests.ts serves it);
//   - a PATCH naming an image of this registry: it must be under the deployment's repository, and there;
//   - a data plane's claim of such a revision: a pull-only JWT for the image's repository.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RegistrySettings } from '../../config.ts';
import { InvalidValues, valueError } from '../deployments/writes/write-problems.ts';
import { checkManifest, type ManifestCheck } from './manifests.ts';
import { issuePushToken, pushTokenHolder } from './push-tokens.ts';
import { RegistryTokenSigner, type RegistryAccess } from './registry-token.ts';
import { deploymentRepository, grantedAccess, imageInRegistry, isUnder, type RequestedScope } from './repositories.ts';

export interface RegistryLifetimes {
  /** How long a push token is good for (the CLI pushes at once, in up to 3 tries). */
  pushTokenSeconds: number;
  /** How long a JWT of the token server is good for; clients ask again with the push token when it runs out. */
  accessTokenSeconds: number;
  /** How long a data plane's pull token is good for, from its claim. */
  pullTokenSeconds: number;
}

export const DEFAULT_REGISTRY_LIFETIMES: RegistryLifetimes = { pushTokenSeconds: 60 * 60, accessTokenSeconds: 5 * 60, pullTokenSeconds: 30 * 60 };

/** The service signs itself a token this long to ask the registry whether a manifest is there. */
const CHECK_TOKEN_SECONDS = 60;

export interface PushTokenAnswer {
  token: string;
  /** `<registry host>/<deployment's repository>`: the CLI pushes `<registryUrl>/<name>:<tag>`. */
  registryUrl: string;
  repository: string;
  expiresAt: Date;
}

/** What a token request answers (the token specification's fields). */
export interface AccessTokenAnswer {
  token: string;
  access_token: string;
  expires_in: number;
  issued_at: string;
}

export interface ImagePull {
  /** A JWT allowing `pull` on `repository` only: `Authorization: Bearer <token>` on the registry's API. */
  token: string;
  /** The registry's address (REGISTRY_URL). */
  registry: string;
  repository: string;
  /** The digest (`sha256:…`) or tag the revision deploys. */
  reference: string;
  expiresAt: Date;
}

export class ContainerRegistry {
  readonly settings: RegistrySettings;
  readonly signer: RegistryTokenSigner;
  readonly lifetimes: RegistryLifetimes;
  /** `host[:port]` as image references name the registry. */
  readonly host: string;

  constructor(settings: RegistrySettings, lifetimes: Partial<RegistryLifetimes> = {}) {
    this.settings = settings;
    this.signer = new RegistryTokenSigner(settings.signingKeyPem, settings.issuer, settings.service);
    this.lifetimes = { ...DEFAULT_REGISTRY_LIFETIMES, ...lifetimes };
    this.host = new URL(settings.url).host;
  }

  repositoryOf(tenantId: string, deploymentId: string): string {
    return deploymentRepository(this.settings.repositoryPrefix, tenantId, deploymentId);
  }

  /** push-token's answer for the caller's deployment (`em` scoped to its tenant; refusals as push-tokens.ts throws them). */
  async issuePushToken(em: EntityManager, tenantId: string, deploymentId: string, apiKeyId: string, now = new Date()): Promise<PushTokenAnswer> {
    const issued = await issuePushToken(em, tenantId, deploymentId, apiKeyId, this.lifetimes.pushTokenSeconds, now);
    const repository = this.repositoryOf(tenantId, deploymentId);
    return { ...issued, registryUrl: `${this.host}/${repository}`, repository };
  }

  /**
   * The token server's answer to `password` (a push token) asking for `scopes`: undefined when the push token is
   * not good (401); otherwise a JWT with the part of the scopes it may grant, possibly none (a login asks none).
   */
  async accessToken(em: EntityManager, password: string, scopes: RequestedScope[], now = new Date()): Promise<AccessTokenAnswer | undefined> {
    const holder = await pushTokenHolder(em, password, now);
    if (!holder) return undefined;
    const access = grantedAccess(scopes, this.repositoryOf(holder.tenantId, holder.deploymentId), ['push', 'pull']);
    // Never good for longer than the push token it was given for.
    const expiresAt = new Date(Math.min(now.getTime() + this.lifetimes.accessTokenSeconds * 1000, holder.expiresAt.getTime()));
    const token = this.signer.sign({ subject: `deployment:${holder.deploymentId}`, access, issuedAt: now, expiresAt });
    return { token, access_token: token, expires_in: Math.max(1, Math.floor((expiresAt.getTime() - now.getTime()) / 1000)), issued_at: now.toISOString() };
  }

  /**
   * Refuses (InvalidValues, a 422 at `source_revision_config.image_uri`) an image of this registry that is not
   * under the deployment's repository or not there; an image of another registry is not this one's to judge.
   */
  async checkPushedImage(tenantId: string, deploymentId: string, imageUri: string | null | undefined): Promise<void> {
    if (imageUri == null) return;
    const problem = await this.#imageProblem(tenantId, deploymentId, imageUri);
    if (problem) throw new InvalidValues([valueError(['source_revision_config', 'image_uri'], imageUri, problem)]);
  }

  /** The pull grant of a claimed revision whose image is in this registry under its deployment; null otherwise. */
  pullGrant(tenantId: string, deploymentId: string, imageUri: string | null, now = new Date()): ImagePull | null {
    const image = imageUri == null ? undefined : imageInRegistry(imageUri, this.host);
    if (!image || !isUnder(image.repository, this.repositoryOf(tenantId, deploymentId))) return null;
    const expiresAt = new Date(now.getTime() + this.lifetimes.pullTokenSeconds * 1000);
    const token = this.#sign(`deployment:${deploymentId}`, [{ type: 'repository', name: image.repository, actions: ['pull'] }], now, expiresAt);
    return { token, registry: this.settings.url, repository: image.repository, reference: image.reference, expiresAt };
  }

  async #imageProblem(tenantId: string, deploymentId: string, imageUri: string): Promise<string | undefined> {
    const image = imageInRegistry(imageUri, this.host);
    if (image === undefined) return undefined;
    if (image === null) return `${imageUri} names this service's registry but is not an image reference (<registry_url>/<name>@sha256:<digest>, or :<tag>)`;
    const repository = this.repositoryOf(tenantId, deploymentId);
    if (!isUnder(image.repository, repository)) {
      return `images in this service's registry are deployed only by the deployment they were pushed for: this one's are under ${this.host}/${repository}`;
    }
    const check: ManifestCheck = await checkManifest(this.settings.url, image.repository, image.reference, this.#sign(
      'manifest-check', [{ type: 'repository', name: image.repository, actions: ['pull'] }], new Date(), new Date(Date.now() + CHECK_TOKEN_SECONDS * 1000),
    ));
    return check.found ? undefined : check.problem;
  }

  #sign(subject: string, access: RegistryAccess[], issuedAt: Date, expiresAt: Date): string {
    return this.signer.sign({ subject, access, issuedAt, expiresAt });
  }
}
