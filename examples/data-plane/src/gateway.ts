// How the simulator reaches the gateway: its settings from the environment, and a GraphQL client in a few lines
// of plain fetch that tells a refusal to act on (a wrong key) from a failure worth retrying (the gateway
// restarting, its database away, a rate limit).

export interface Settings {
  /** GATEWAY_URL: where the gateway answers; GraphQL is at `<url>/graphql`. */
  gatewayUrl: string;
  /** RECONCILE_KEY: a data plane's API key (`npm run apikey -- create --tenant <id> --reconcile [--listener <id>]`). */
  reconcileKey: string;
  /** STEP_MS: the delay between two reports on one revision, in milliseconds. */
  stepMs: number;
  /** TENANT_ID: sent as X-Tenant-Id when set, for a key of several tenants that should act for one only. */
  tenantId: string | undefined;
  /** DATA_PLANE_VERSION: reported as the listener's version (a key bound to a listener); default `simulator`. */
  version: string;
}

/** A setting that is missing or malformed: the simulator says so and stops. */
export class SettingsError extends Error {
  override name = 'SettingsError';
}

export function readSettings(env: Record<string, string | undefined> = process.env): Settings {
  const reconcileKey = env.RECONCILE_KEY?.trim();
  if (!reconcileKey) {
    throw new SettingsError('RECONCILE_KEY is not set: give the simulator a data plane\'s API key, one issued with `npm run apikey -- create --tenant <tenant id> --reconcile` '
      + '(with `npm start`, the demo API key it prints)');
  }
  const stepText = env.STEP_MS?.trim() || '1500';
  const stepMs = Number(stepText);
  if (!Number.isInteger(stepMs) || stepMs < 0) throw new SettingsError(`STEP_MS must be a whole number of milliseconds, 0 or more (got "${stepText}")`);
  const gatewayUrl = (env.GATEWAY_URL?.trim() || 'http://localhost:4000').replace(/\/+$/, '');
  if (!/^https?:\/\//.test(gatewayUrl)) throw new SettingsError(`GATEWAY_URL must start with http:// or https:// (got "${gatewayUrl}")`);
  return { gatewayUrl, reconcileKey, stepMs, tenantId: env.TENANT_ID?.trim() || undefined, version: env.DATA_PLANE_VERSION?.trim() || 'simulator' };
}

interface ResponseError {
  message: string;
  extensions?: { code?: string };
}

/** The gateway refused the request; retrying it unchanged would not help. `codes`: the errors' `extensions.code`. */
export class GatewayError extends Error {
  override name = 'GatewayError';
  readonly codes: string[];

  constructor(status: number, errors: ResponseError[]) {
    super(`HTTP ${status}: ${errors.map((error) => `${error.message}${error.extensions?.code ? ` [${error.extensions.code}]` : ''}`).join('; ')}`);
    this.codes = errors.map((error) => error.extensions?.code ?? 'UNKNOWN');
  }
}

/** The gateway could not answer now (unreachable, restarting, its database away, rate limited): try again later. */
export class GatewayUnavailable extends Error {
  override name = 'GatewayUnavailable';
}

/** Codes of refusals that pass with time. */
const TRANSIENT_CODES = new Set(['SERVICE_UNAVAILABLE', 'RATE_LIMITED']);

export class GatewayClient {
  readonly #settings: Settings;

  constructor(settings: Settings) {
    this.#settings = settings;
  }

  /**
   * Runs one operation and returns its `data`; throws GatewayError or GatewayUnavailable. `tenantId`: sent as
   * X-Tenant-Id instead of TENANT_ID's (to read a record of a lease's tenant).
   */
  async request<Result>(query: string, variables: Record<string, unknown>, { tenantId = this.#settings.tenantId }: { tenantId?: string } = {}): Promise<Result> {
    let response: Response;
    try {
      response = await fetch(`${this.#settings.gatewayUrl}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json, application/json',
          'x-api-key': this.#settings.reconcileKey,
          ...(tenantId && { 'x-tenant-id': tenantId }),
        },
        body: JSON.stringify({ query, variables }),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      throw new GatewayUnavailable(`cannot reach ${this.#settings.gatewayUrl} (${error instanceof Error ? error.message : String(error)}${cause})`);
    }
    let result: { data?: Result | null; errors?: ResponseError[] };
    try {
      result = (await response.json()) as typeof result;
    } catch {
      throw new GatewayUnavailable(`${this.#settings.gatewayUrl} answered HTTP ${response.status} without a GraphQL result`);
    }
    const errors = result.errors ?? [];
    if (errors.length > 0 || result.data == null) {
      const refusal = new GatewayError(response.status, errors.length ? errors : [{ message: 'no data in the answer' }]);
      if (response.status >= 500 || response.status === 429 || refusal.codes.some((code) => TRANSIENT_CODES.has(code))) throw new GatewayUnavailable(refusal.message);
      throw refusal;
    }
    return result.data;
  }
}
