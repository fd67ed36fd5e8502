// The original's answers to the writes' refusals (docs/decisions.md#writes), for every REST write route: one
// switch, by the refusal's class, whatever the route. The handlers throw these (write-problems.ts and the
// listeners', data planes', registry's and source archives' own); GraphQL shows the same classes as typed
// results (Pothos' errors plugin). Anything else thrown is no refusal (undefined).
import type { GraphQLContext } from '../graphql/context.ts';
import { deploymentTagFor } from '../modules/deployments/deployment-tag.ts';
import {
  DeploymentNameTaken, DeploymentNotFound, InvalidValues, PreconditionFailed, RevisionNotFound, WriteRefusal,
} from '../modules/deployments/writes/write-problems.ts';
import { ListenerComputeIdTaken, ListenerInUse, ListenerNamespacesInUse, ListenerNotFound } from '../modules/listeners/listener-problems.ts';
import { PushTokensUnavailable, RegistryNotConfigured } from '../modules/registry/push-tokens.ts';
import {
  InvalidTransition, LeaseLost, LogLineLimit, LogLinesOutOfOrder, RevisionEnded, RevisionNotRunning,
} from '../modules/revisions/lifecycle/lifecycle-problems.ts';
import { SourceUploadsUnavailable } from '../modules/storage/source-archives.ts';
import type { LegacyAnswer } from './legacy-responses.ts';

const detail = (status: number, refusal: WriteRefusal, more: Record<string, unknown> = {}): LegacyAnswer => ({ status, body: { detail: refusal.message, ...more } });

/**
 * The answer to `error` when it is a refusal, undefined otherwise. `reader`: the operation's context, whose
 * caller a 412's ETag (the deployment's tag now) is made for.
 */
export function refusalAnswer(error: unknown, reader: Pick<GraphQLContext, 'principal' | 'cipher'>): LegacyAnswer | undefined {
  if (!(error instanceof WriteRefusal)) return undefined;
  if (error instanceof InvalidValues) {
    return {
      status: 422,
      body: {
        // Built as pydantic builds its items, so the keys come in its order (type, loc, msg, input, ctx).
        detail: error.problems.map(({ type, loc, msg, input, ctx }) => ({ type, loc: ['body', ...loc], msg, input: input ?? null, ...(ctx && { ctx }) })),
      },
    };
  }
  if (error instanceof DeploymentNotFound || error instanceof RevisionNotFound || error instanceof ListenerNotFound) return detail(404, error);
  if (error instanceof PreconditionFailed) return { ...detail(412, error), headers: { etag: deploymentTagFor(reader, error.deploymentId, error.currentVersion) } };
  if (error instanceof PushTokensUnavailable || error instanceof SourceUploadsUnavailable) return detail(400, error);
  if (error instanceof RegistryNotConfigured) return detail(501, error);
  if (error instanceof DeploymentNameTaken || error instanceof ListenerComputeIdTaken || error instanceof ListenerInUse
    || error instanceof ListenerNamespacesInUse || error instanceof InvalidTransition) return detail(409, error);
  if (error instanceof LeaseLost || error instanceof RevisionEnded || error instanceof RevisionNotRunning) return detail(409, error, { status: error.status });
  if (error instanceof LogLinesOutOfOrder) return detail(409, error, { expected_line: error.expectedLine });
  if (error instanceof LogLineLimit) return detail(409, error, { line_limit: error.limit, lines_stored: error.stored });
  return undefined;
}
