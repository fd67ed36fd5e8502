// The schema evolution guard: schema.graphql may add to the last release's schema (schema.released.graphql)
// freely, but each breaking change must be marked deliberate in CHANGELOG.md's Unreleased section. The checks
// on made-up schemas show what the guard lets through and what it stops.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config.ts';
import {
  changesBetween, deliberateBreakingChanges, describeChange, judge, judgeProject, RELEASED_SCHEMA,
} from '../scripts/schema-evolution.ts';

describe('schema.graphql since the last release', () => {
  it('makes no breaking change that CHANGELOG.md does not mark as deliberate (npm run schema:changes lists them)', async () => {
    const { unmarked, unusedMarks } = await judgeProject();
    expect(unmarked.map(describeChange), 'unmarked breaking changes').toEqual([]);
    expect(unusedMarks, 'marks in CHANGELOG.md that name no breaking change').toEqual([]);
  });

  it('is compared with a released schema that builds', () => {
    expect(fs.readFileSync(path.join(PROJECT_ROOT, RELEASED_SCHEMA), 'utf8')).toMatch(/^type Query \{/m);
  });
});

const RELEASED = `
type Query { deployments(limit: Int = 20): [Deployment!]! }
type Deployment { id: ID! name: String! imageVersion: String status: Status! }
enum Status { READY UNKNOWN }
`;

const changelog = (unreleased: string, released = '') => `# Changelog\n\nIntro.\n\n## Unreleased\n\n${unreleased}\n\n## 0.1.0 - 2026-01-01\n\n${released}\n`;

async function verdictFor(current: string, changelogText: string) {
  return judge(await changesBetween(RELEASED, current), deliberateBreakingChanges(changelogText));
}

describe('the guard', () => {
  it('lets additions through: a field, a type, a subscription root, an optional argument, an enum value', async () => {
    const current = `
      type Query { deployments(limit: Int = 20, nameContains: String): [Deployment!]! tags: [String!]! }
      type Subscription { deploymentUpdated: Change! }
      type Change { deploymentId: ID! deployment: Deployment }
      type Deployment { id: ID! name: String! imageVersion: String status: Status! createdAt: String }
      enum Status { READY UNKNOWN UNUSED }`;
    const verdict = await verdictFor(current, changelog(''));
    expect(verdict.changes.length).toBeGreaterThanOrEqual(6);
    expect(verdict.unmarked).toEqual([]);
  });

  it('stops each unmarked breaking change, by path: a field removed, a type narrowed, an enum value removed, a required argument', async () => {
    const current = `
      type Query { deployments(limit: Int = 20, tenant: ID!): [Deployment!]! }
      type Deployment { id: ID! name: Int! status: Status! }
      enum Status { READY }`;
    const verdict = await verdictFor(current, changelog('### Added\n\n- Something else.'));
    expect(verdict.unmarked.map(describeChange).sort()).toEqual([
      "Deployment.imageVersion: Field 'imageVersion' was removed from object type 'Deployment'",
      "Deployment.name: Field 'Deployment.name' changed type from 'String!' to 'Int!'",
      "Query.deployments.tenant: Argument 'tenant: ID!' added to field 'Query.deployments'",
      "Status.UNKNOWN: Enum value 'UNKNOWN' was removed from enum 'Status'",
    ]);
  });

  it('lets a breaking change through when the Unreleased section marks its path, and only there', async () => {
    const current = RELEASED.replace(' imageVersion: String', '');
    const mark = '- Breaking: `Deployment.imageVersion` removed; read the latest revision\'s image instead.';
    expect((await verdictFor(current, changelog(mark))).unmarked).toEqual([]);
    expect((await verdictFor(current, changelog('', mark))).unmarked.map(describeChange)).toEqual([
      "Deployment.imageVersion: Field 'imageVersion' was removed from object type 'Deployment'",
    ]);
    // Not a mark: it has to start a line of the list, with the path in backticks.
    for (const text of [`Note: ${mark}`, '- Breaking: Deployment.imageVersion removed.', `    ${mark}`]) {
      expect((await verdictFor(current, changelog(text))).unmarked).toHaveLength(1);
    }
  });

  it('reports a mark that names no breaking change', async () => {
    const verdict = await verdictFor(RELEASED, changelog('- Breaking: `Deployment.imageVersoin` removed.'));
    expect(verdict.unmarked).toEqual([]);
    expect(verdict.unusedMarks).toEqual(['Deployment.imageVersoin']);
  });
});
