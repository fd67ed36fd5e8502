// POST /v1/projects/{deployment_id}/revisions/{revision_id}/build_logs: a page of a revision's build log, as
// the original's CLI reads it while it waits for a remote build (shared/spec/original-write-side.md §6.5: the
// deployment id as the project id; body `{order, limit, offset}`; it reads `logs[].message` and `next_offset`)
// and in `deploy logs --type build` (with the filters of log-pages.ts).
// A read, though a POST: any key of the tenant may call it. It runs the revision's `logPage`.
import { checkBuildLogsRequest } from '../modules/revisions/lifecycle/data-plane-request-schema.ts';
import { LOG_FILTERS_DESCRIPTION, revisionLogRoute } from './log-pages.ts';

export const buildLogsRoute = revisionLogRoute({
  log: 'build_logs',
  phase: 'BUILD',
  operationName: 'LegacyBuildLogs',
  summary: 'Build Logs',
  description: 'A page of the revision\'s build log: `order` asc (oldest first, the default) or desc, `limit` lines (default 100), after skipping `offset` '
    + `from that end. \`next_offset\` is where the next page starts: tailing a running build, send it back as \`offset\` with asc. ${LOG_FILTERS_DESCRIPTION}`,
  body: checkBuildLogsRequest,
  schemaPrefix: 'BuildLogs',
  bodyExample: { order: 'asc', limit: 50 },
});
