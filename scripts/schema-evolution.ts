// The schema evolution guard: schema.graphql against schema.released.graphql (the schema of the last release),
// compared by @graphql-inspector/core. A breaking change (something a client's operation may rely on removed
// or changed) must be marked deliberate in CHANGELOG.md's Unreleased section; additions need no mark.
import fs from 'node:fs';
import path from 'node:path';
import { CriticalityLevel, diff, type Change } from '@graphql-inspector/core';
import { buildSchema } from 'graphql';
import { PROJECT_ROOT } from '../src/config.ts';

export const RELEASED_SCHEMA = 'schema.released.graphql';
export const CHANGELOG = 'CHANGELOG.md';

/** `- Breaking: \`Deployment.imageVersion\` …`: a line of its own, naming the change by its path. */
const MARK = /^- Breaking: `([^`]+)`/gm;

/** Where a change is: `Type.field`, `Type.field.argument`, `Enum.VALUE`, `Type`; schema-level changes by their kind. */
export const pathOf = (change: Change): string => change.path ?? change.type;

export function changesBetween(released: string, current: string): Promise<Change[]> {
  return diff(buildSchema(released), buildSchema(current));
}

/** The paths marked deliberate in the Unreleased section (marks under a released version excuse nothing new). */
export function deliberateBreakingChanges(changelog: string): Set<string> {
  const unreleased = /^## Unreleased\b[^\n]*\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(changelog)?.[1] ?? '';
  return new Set([...unreleased.matchAll(MARK)].map((match) => match[1]!));
}

export interface Verdict {
  changes: Change[];
  /** Breaking changes that no mark names. */
  unmarked: Change[];
  /** Marks that name no breaking change (a typo, or a change undone since). */
  unusedMarks: string[];
}

export function judge(changes: Change[], marks: Set<string>): Verdict {
  const breaking = changes.filter((change) => change.criticality.level === CriticalityLevel.Breaking);
  const breakingPaths = new Set(breaking.map(pathOf));
  return {
    changes,
    unmarked: breaking.filter((change) => !marks.has(pathOf(change))),
    unusedMarks: [...marks].filter((mark) => !breakingPaths.has(mark)),
  };
}

/** This project's files: schema.graphql since the last release, against CHANGELOG.md. */
export async function judgeProject(root = PROJECT_ROOT): Promise<Verdict> {
  const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
  return judge(await changesBetween(read(RELEASED_SCHEMA), read('schema.graphql')), deliberateBreakingChanges(read(CHANGELOG)));
}

export const describeChange = (change: Change): string => `${pathOf(change)}: ${change.message}`;
