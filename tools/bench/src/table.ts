/** Markdown tables and number formats for the report. */

export type Align = 'left' | 'right';

/**
 * A GitHub-flavoured markdown table whose columns line up in a terminal too: the first column left
 * aligned, the others right aligned unless `align` says otherwise.
 */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  align?: readonly Align[],
): string {
  const alignOf = (i: number): Align => align?.[i] ?? (i === 0 ? 'left' : 'right');
  const widths = header.map((h, i) => Math.max(3, h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `| ${widths.map((w, i) => (alignOf(i) === 'left' ? (cells[i] ?? '').padEnd(w) : (cells[i] ?? '').padStart(w))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (alignOf(i) === 'left' ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** A number with a fixed count of decimals; "–" for NaN or infinities. */
export function fixed(value: number, decimals = 1): string {
  return Number.isFinite(value) ? value.toFixed(decimals) : '–';
}

/** Whole numbers with thousands separators: 12,345. */
export function count(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–';
}

/** A ratio as "0.64×". */
export function times(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : '–';
}

/** A ratio as a percentage, "64 %". */
export function percent(value: number): string {
  return Number.isFinite(value) ? `${Math.round(value * 100)} %` : '–';
}

/** Bytes as mebibytes, "87.3 MB" (MiB, as /proc reports kB = KiB). */
export function megabytes(bytes: number): string {
  return Number.isFinite(bytes) ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : '–';
}

/** "met", "NOT met" or "not measured", for the targets list. */
export function verdict(met: boolean | undefined): string {
  return met === undefined ? 'not measured' : met ? 'met' : 'NOT met';
}
