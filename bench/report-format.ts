/** Number formats shared by the report's sections: '–' for what was not measured. */
export const int = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? '–' : Math.round(n).toLocaleString('en-US'));
// autocannon reports whole milliseconds: print those as they are, timed values with two decimals below 10 ms.
export const ms = (n: number | undefined) =>
  n === undefined || !Number.isFinite(n) ? '–' : `${Number.isInteger(n) || n >= 10 ? n.toFixed(0) : n.toFixed(2)} ms`;
export const mb = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? '–' : `${n.toFixed(0)} MB`);
export const us = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? '–' : `${n.toFixed(0)} µs`);
export const pct = (ratio: number | undefined) => (ratio === undefined || !Number.isFinite(ratio) ? '–' : `${(ratio * 100).toFixed(1)}%`);

export function row(cells: Array<string | number>): string {
  return `| ${cells.map((cell) => String(cell).replace(/\|/g, '\\|')).join(' | ')} |`;
}
