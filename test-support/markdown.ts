// Markdown tables as the tests read them: rows of cells, whatever padding the formatter gives them.

/** A table's separator row: `|---|:---:|`. */
const SEPARATOR_ROW = /^\|[\s:|-]+\|$/;

/** The rows of every table in `markdown` (header rows too, separator rows not), each a list of its trimmed cells. */
export function markdownTableRows(markdown: string): string[][] {
  return markdown
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('|') && line.endsWith('|') && !SEPARATOR_ROW.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
}
