// `subscription { revisionLogLines(revisionId:, phase:) }`: the lines appended to a revision's log as they are
// committed, over Server-Sent Events (docs/graphql.md#following-a-log): follow a running service's log (or a
// build's) without polling. Each append's NOTIFY names the revision and its last line (revision-log-
// notifications.ts); each stream loads the lines after the last it sent (revision-log-stream.ts).
import { GraphQLError } from 'graphql';
import { builder } from '../../../graphql/builder.ts';
import { badUserInput, notFound } from '../../../graphql/errors.ts';
import { uuidOfArgument } from '../../../graphql/global-id.ts';
import { scopeToTenant } from '../../common/tenant-scope.ts';
import { liveUpdateErrors } from '../../deployments/live/live-update-errors.ts';
import { RevisionSchema } from '../revision.entity.ts';
import type { LogPhase } from './revision-log-line.entity.ts';
import { LOG_BATCH, type LogBatch } from './revision-log-stream.ts';
import { LogFilterInput, LogLineRef, LogPhaseEnum, logFilterOf } from './revision-logs.graphql.ts';
import { readLogLines } from './revision-logs.ts';

interface LogLinesEvent extends LogBatch {
  revisionId: string;
  phase: LogPhase;
}

const LogLinesEventRef = builder.objectRef<LogLinesEvent>('RevisionLogLines').implement({
  description: 'Lines appended to a revision\'s log, as a live update: the lines after the last one the stream sent, in line order.',
  fields: (t) => ({
    revisionId: t.field({ type: 'UUID', description: 'Raw id of the revision.', resolve: (event) => event.revisionId }),
    phase: t.field({ type: LogPhaseEnum, description: 'Which of its logs.', resolve: (event) => event.phase }),
    lines: t.field({ type: [LogLineRef], description: `The new lines that pass the filter, oldest first (at most ${LOG_BATCH}; more follow in the next event).`, resolve: (event) => event.lines }),
  }),
});

builder.subscriptionField('revisionLogLines', (t) =>
  t.field({
    type: LogLinesEventRef,
    description: 'The lines appended to a revision\'s log, as they are committed: follow a running service\'s log (RUNTIME, the default) or a build\'s without polling. '
      + 'No line is sent twice or skipped, also when the service\'s connection to the database blinks (lines deleted by retention before they were sent are gone). '
      + 'To follow a deployment across revisions, subscribe to `revisionUpdated` too and follow each revision that becomes DEPLOYED.',
    args: {
      revisionId: t.arg.id({ required: true, description: 'The revision (raw UUID or global id).' }),
      phase: t.arg({ type: LogPhaseEnum, required: true, defaultValue: 'runtime', description: 'Which log.' }),
      afterLine: t.arg.int({ description: 'Send the lines after this line number first (the `line` of the last one the client has); default: only lines appended from now on.' }),
      filter: t.arg({ type: LogFilterInput, description: 'Only the lines matching every field given.' }),
    },
    subscribe: async (_root, { revisionId, phase, afterLine, filter }, ctx) => {
      const feed = ctx.deploymentChanges;
      if (!feed) throw liveUpdateErrors.unavailable();
      if (afterLine != null && afterLine < -1) throw badUserInput('afterLine', `must be -1 (from the first line) or more; got ${afterLine}`);
      const id = uuidOfArgument(String(revisionId), 'Revision', 'revisionId');
      if (!id) throw notFound(`Revision ID ${String(revisionId)} not found.`);
      // Read on the primary: the NOTIFY that announces lines comes from there, and a replica may lag behind it.
      const primary = ctx.primaryEm();
      const { tenantId } = ctx.principal;
      const linesFilter = logFilterOf(filter);
      // Opened before the revision is checked and the start is read, so that no line committed in between is missed.
      const stream = feed.openLogLines(ctx.principal, id, phase, (after, take) =>
        readLogLines(scopeToTenant(primary, tenantId), id, phase, { after, order: 'asc', skip: 0, take }, linesFilter));
      try {
        if (await primary.count(RevisionSchema, { id }) === 0) throw notFound(`Revision ID ${String(revisionId)} not found.`);
        const [newest] = afterLine == null ? await readLogLines(primary, id, phase, { order: 'desc', skip: 0, take: 1 }) : [];
        stream.startAfter(afterLine ?? newest?.line ?? -1);
      } catch (error) {
        // Closed on every way out but success, so that it does not count against the key's limit for nothing.
        await stream.return();
        throw error;
      }
      return stream;
    },
    resolve: (item: LogBatch | GraphQLError, { revisionId, phase }) => {
      if (item instanceof GraphQLError) throw item;
      return { ...item, revisionId: uuidOfArgument(String(revisionId), 'Revision', 'revisionId')!, phase };
    },
  }));
