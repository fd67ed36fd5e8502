// The original's answers to the mutations' typed refusals (docs/decisions.md#writes), for every REST route that
// runs a mutation: one switch, whatever the route. A route's document selects REFUSED and the fragments of the
// refusals its mutation may give; a payload is not a refusal (undefined).
import type { LegacyAnswer } from './legacy-responses.ts';

/** Every refusal's type and message. */
export const REFUSED = '__typename ... on MutationError { message }';
/** An InvalidInputError's problems, which become pydantic's 422 items. */
export const INVALID = '... on InvalidInputError { problems { restLocation type message input context } }';
/** A PreconditionFailedError's current tag, which its 412 carries as ETag. */
export const PRECONDITION = '... on PreconditionFailedError { currentEtag }';

interface Refusal {
  __typename: string;
  message: string;
  problems?: { restLocation: string[]; type: string; message: string; input: unknown; context: Record<string, unknown> | null }[];
  currentEtag?: string;
  expectedLine?: number;
  status?: string;
  limit?: number;
  stored?: number;
}

const detail = (status: number, result: Refusal, more: Record<string, unknown> = {}): LegacyAnswer => ({ status, body: { detail: result.message, ...more } });

/** The answer to `result` when it is a refusal; undefined for a payload. */
export function refusalAnswer(result: Refusal): LegacyAnswer | undefined {
  switch (result.__typename) {
    case 'InvalidInputError':
      return {
        status: 422,
        body: {
          // Built as pydantic builds its items, so the keys come in its order (type, loc, msg, input, ctx).
          detail: result.problems!.map(({ restLocation, type, message, input, context }) => ({
            type, loc: ['body', ...restLocation.map((part) => (/^\d+$/.test(part) ? Number(part) : part))], msg: message, input,
            ...(context && { ctx: context }),
          })),
        },
      };
    case 'DeploymentNotFoundError':
    case 'RevisionNotFoundError':
    case 'ListenerNotFoundError': return detail(404, result);
    case 'PreconditionFailedError': return { ...detail(412, result), headers: { etag: result.currentEtag! } };
    case 'PushTokensUnavailableError':
    case 'SourceUploadsUnavailableError': return detail(400, result);
    case 'DeploymentNameTakenError':
    case 'ListenerComputeIdTakenError':
    case 'ListenerInUseError':
    case 'ListenerNamespacesInUseError':
    case 'InvalidTransitionError': return detail(409, result);
    case 'LeaseLostError':
    case 'RevisionEndedError':
    case 'RevisionNotRunningError': return detail(409, result, { status: result.status });
    case 'LogLinesOutOfOrderError': return detail(409, result, { expected_line: result.expectedLine });
    case 'LogLineLimitError': return detail(409, result, { line_limit: result.limit, lines_stored: result.stored });
    default: return undefined;
  }
}
