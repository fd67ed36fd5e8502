// The registry's `realm`: `GET /registry/token?service=…&scope=…` with HTTP Basic `oauth2accesstoken:<push
// token>`, as a Docker client, skopeo or the registry token specification sends it. Served before any API-key
// authentication (http/request-handler.ts): the push token is the credential. Answers `{token, access_token,
// expires_in, issued_at}`, the JWT granting what container-registry.ts allows; 401 for a push token that is not
// good (unknown, expired, its deployment deleted, its key revoked), 429 once an address has failed too often
// (the API keys' budget of failed authentications). Errors in the registry API's shape.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import { RateLimitExceeded, type RateLimiter } from '../../limits/rate-limiter.ts';
import type { ContainerRegistry } from './container-registry.ts';
import { parseScopes } from './repositories.ts';

export const TOKEN_PATH = '/registry/token';
/** The user name the original's CLI logs in with; the password is the push token. */
export const TOKEN_USER = 'oauth2accesstoken';

function answer(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

const refusal = (code: string, message: string) => ({ errors: [{ code, message, detail: null }] });

/** The password of a Basic `Authorization` header whose user is TOKEN_USER; undefined otherwise. */
function pushTokenOf(header: string | undefined): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon !== -1 && decoded.slice(0, colon) === TOKEN_USER ? decoded.slice(colon + 1) : undefined;
}

export class RegistryTokenRequests {
  readonly route = TOKEN_PATH;
  readonly #registry: ContainerRegistry;
  readonly #em: () => EntityManager;
  readonly #rateLimiter: RateLimiter | undefined;

  /** `rateLimiter`: a refused push token counts against its address's budget of failed authentications, as a wrong API key does. */
  constructor(registry: ContainerRegistry, em: () => EntityManager, rateLimiter?: RateLimiter) {
    this.#registry = registry;
    this.#em = em;
    this.#rateLimiter = rateLimiter;
  }

  owns(url: string): boolean {
    return url === TOKEN_PATH || url.startsWith(`${TOKEN_PATH}?`);
  }

  deadlineOf(): undefined {
    return undefined;
  }

  async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'GET') return answer(res, 405, refusal('UNSUPPORTED', 'Use GET with HTTP Basic credentials'), { allow: 'GET', connection: 'close' });
    const query = new URL(req.url!, 'http://localhost').searchParams;
    const service = query.get('service');
    if (service !== null && service !== this.#registry.settings.service) {
      return answer(res, 400, refusal('DENIED', `This token server signs for the registry service "${this.#registry.settings.service}", not "${service}"`));
    }
    const pushToken = pushTokenOf(req.headers.authorization);
    const granted = pushToken === undefined ? undefined : await this.#registry.accessToken(this.#em(), pushToken, parseScopes(query.getAll('scope')));
    if (!granted) {
      try {
        await this.#rateLimiter?.recordAuthFailure(req.socket.remoteAddress ?? 'unknown');
      } catch (error) {
        if (!(error instanceof RateLimitExceeded)) throw error;
        return answer(res, 429, refusal('TOOMANYREQUESTS', error.message), { 'retry-after': String(error.state.resetSeconds) });
      }
      return answer(res, 401, refusal('UNAUTHORIZED', `Log in as ${TOKEN_USER} with a push token that is good: POST /v2/deployments/{deployment_id}/push-token issues one`), {
        'www-authenticate': 'Basic realm="deployments-gateway registry tokens"',
      });
    }
    return answer(res, 200, granted);
  }
}
