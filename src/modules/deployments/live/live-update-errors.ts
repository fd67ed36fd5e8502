// The errors of live updates, with the `extensions.code` clients act on (docs/graphql.md#live-updates).
import { GraphQLError } from 'graphql';

export type MissedReason = 'reconnect' | 'overflow' | 'load-failure';

const MISSED_BECAUSE: Record<MissedReason, string> = {
  reconnect: 'the service lost its connection to the database\'s notifications for a moment',
  overflow: 'more changes were waiting than the stream holds',
  'load-failure': 'the changed deployments could not be read',
};

export const liveUpdateErrors = {
  /** An event of an open stream: some changes were not delivered; the stream goes on. */
  changesMissed: (reason: MissedReason) => new GraphQLError(
    `Some deployment changes may not have been delivered (${MISSED_BECAUSE[reason]}); fetch the deployments you show again. The stream goes on.`,
    { extensions: { code: 'CHANGES_MISSED', reason } },
  ),

  /** An event of an open revision stream: some status changes were not delivered; the stream goes on. */
  transitionsMissed: (reason: MissedReason) => new GraphQLError(
    `Some revision status changes may not have been delivered (${MISSED_BECAUSE[reason]}); read the revisions you wait for again. The stream goes on.`,
    { extensions: { code: 'CHANGES_MISSED', reason } },
  ),

  tooManyStreams: (limit: number) => new GraphQLError(
    `Too many open subscriptions for this API key: at most ${limit} at a time; close one before opening another.`,
    { extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', limit, http: { status: 429 } } },
  ),

  /** The last event of a stream whose key was revoked (and the refusal of a new one). */
  revoked: () => new GraphQLError('The API key was revoked.', {
    extensions: { code: 'UNAUTHENTICATED', http: { status: 401, headers: { 'WWW-Authenticate': 'APIKey' } } },
  }),

  shuttingDown: () => new GraphQLError('The service is shutting down; subscribe again.', {
    extensions: { code: 'SERVICE_UNAVAILABLE', http: { status: 503, headers: { 'Retry-After': '1' } } },
  }),

  unavailable: () => new GraphQLError('Live updates are not available from this service.', {
    extensions: { code: 'SERVICE_UNAVAILABLE', http: { status: 503 } },
  }),
};
