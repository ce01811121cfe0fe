// The `fixtures:` block of a target file as text: the `fixtures:` key at the start of a line and
// the lines indented under it, one `  kind: id` each, a comment after the id allowed. It is read,
// and written in its place with the rest of the file kept as it is; a file of another shape is
// refused, naming the file and what is wrong, never guessed at.
import { isDeepStrictEqual } from 'node:util';
import { parse as parseYaml } from 'yaml';

/** One record of a fixtures block: its kind, its id and, where the file says it, what it is. */
export interface FixtureLine {
  kind: string;
  id: string;
  comment?: string;
}

/** Where the block sits (line indexes, `end` excluded) and the records it gives, in its order. */
interface FoundBlock {
  start: number;
  end: number;
  lines: FixtureLine[];
}

const KEY_LINE = /^fixtures:( \{\})?$/;
const RECORD_LINE = /^ {2}([A-Za-z][A-Za-z0-9]*): (\S+)(?: # (.*))?$/;

/** The lines under the key: those indented, up to the first that is not. */
function blockEnd(lines: string[], start: number): number {
  let end = start + 1;
  while (end < lines.length && lines[end].startsWith(' ')) end += 1;
  return end;
}

function recordLine(line: string, number: number, file: string): FixtureLine {
  const match = RECORD_LINE.exec(line);
  if (!match)
    throw new Error(`${file}: line ${number} of its fixtures block is not "  kind: id" (a comment after it allowed)`);
  const [, kind, id, comment] = match;
  return comment === undefined ? { kind, id } : { kind, id, comment };
}

/** The records as YAML reads them from a block holding `lines`. */
const asFixtures = (lines: FixtureLine[]) => Object.fromEntries(lines.map((line) => [line.kind, line.id]));

/** What YAML reads at the file's `fixtures` key, or undefined when the file does not parse. */
function parsedFixtures(text: string): unknown {
  try {
    return (parseYaml(text) as { fixtures?: unknown } | null)?.fixtures;
  } catch {
    return undefined;
  }
}

function refuseUnlessReadAs(text: string, lines: FixtureLine[], file: string, what: string): void {
  if (!isDeepStrictEqual(parsedFixtures(text), asFixtures(lines)))
    throw new Error(`${file}: ${what} does not read as YAML as the records its lines name`);
}

function foundBlock(text: string, file: string): FoundBlock {
  const lines = text.split('\n');
  const starts = lines.flatMap((line, index) => (line.startsWith('fixtures:') ? [index] : []));
  if (starts.length !== 1)
    throw new Error(`${file}: ${starts.length} lines start with "fixtures:"; the records are written under one`);
  const [start] = starts;
  if (!KEY_LINE.test(lines[start]))
    throw new Error(`${file}: line ${start + 1} is not "fixtures:" (nor "fixtures: {}", for none) on its own`);
  const end = blockEnd(lines, start);
  const records = lines.slice(start + 1, end).map((line, index) => recordLine(line, start + index + 2, file));
  refuseUnlessReadAs(text, records, file, 'its fixtures block');
  return { start, end, lines: records };
}

/** The records a target file's fixtures block gives, in its order. */
export function readFixturesBlock(text: string, file: string): FixtureLine[] {
  return foundBlock(text, file).lines;
}

/** A fixtures block's lines: `fixtures: {}` for none, so that the key stays where it is. */
export function fixturesBlockLines(records: FixtureLine[]): string[] {
  if (records.length === 0) return ['fixtures: {}'];
  return [
    'fixtures:',
    ...records.map(({ kind, id, comment }) => `  ${kind}: ${id}${comment === undefined ? '' : ` # ${comment}`}`),
  ];
}

/** The file's text with its fixtures block giving `records`, every other line as it was. */
export function withFixturesBlock(text: string, file: string, records: FixtureLine[]): string {
  const { start, end } = foundBlock(text, file);
  const lines = text.split('\n');
  const written = [...lines.slice(0, start), ...fixturesBlockLines(records), ...lines.slice(end)].join('\n');
  refuseUnlessReadAs(written, records, file, 'the fixtures block written');
  return written;
}
