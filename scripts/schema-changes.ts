// `npm run schema:changes`: every change of schema.graphql since the last release (schema.released.graphql),
// breaking, dangerous or safe, and whether CHANGELOG.md marks each breaking one as deliberate. Exits 1 when one
// is not (the same verdict as test/schema-evolution.test.ts), so it says what to write before the test fails.
import { CriticalityLevel } from '@graphql-inspector/core';
import { CHANGELOG, describeChange, judgeProject, RELEASED_SCHEMA } from './schema-evolution.ts';

const LABELS: Record<CriticalityLevel, string> = {
  [CriticalityLevel.Breaking]: 'breaking ',
  [CriticalityLevel.Dangerous]: 'dangerous',
  [CriticalityLevel.NonBreaking]: 'safe     ',
};

const verdict = await judgeProject();
const count = verdict.changes.length;
console.log(`schema.graphql since the last release (${RELEASED_SCHEMA}): ${count} ${count === 1 ? 'change' : 'changes'}`);
for (const change of verdict.changes) {
  const unmarked = verdict.unmarked.includes(change) ? '   <- not marked deliberate' : '';
  console.log(`  ${LABELS[change.criticality.level]}  ${describeChange(change)}${unmarked}`);
}
for (const mark of verdict.unusedMarks) console.log(`  ${CHANGELOG} marks \`${mark}\`, which is no breaking change of the schema`);
if (verdict.unmarked.length > 0 || verdict.unusedMarks.length > 0) {
  console.log(`\nMark each deliberate breaking change in ${CHANGELOG}'s Unreleased section, as "- Breaking: \`<path>\` <what clients do instead>", or undo it.`);
  process.exitCode = 1;
}
