/** One point of the plot: create throughput at a history size. */
export interface ThroughputPoint {
  stored: number;
  rps: number;
}

const WIDTH = 640;
const HEIGHT = 360;
const PAD = { left: 70, right: 150, top: 40, bottom: 50 };

function niceStep(max: number, ticks: number): number {
  const raw = max / ticks;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((step) => step >= raw) ?? raw;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Create throughput against stored records, with the bare-Express ceiling and the 80% / 60% target levels.
 * Linear axes, so 0 and 10,000 sit close together: the plot shows the scale honestly.
 */
export function renderThroughputSvg(points: ThroughputPoint[], ceilingRps: number, title: string): string {
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const maxX = Math.max(100_000, ...points.map((p) => p.stored));
  const yStep = niceStep(Math.max(ceilingRps, ...points.map((p) => p.rps), 1) * 1.1, 5);
  const maxY = Math.ceil((Math.max(ceilingRps, ...points.map((p) => p.rps), 1) * 1.1) / yStep) * yStep;
  const x = (stored: number) => PAD.left + (stored / maxX) * plotW;
  const y = (rps: number) => PAD.top + plotH - (rps / maxY) * plotH;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${PAD.left}" y="22" font-size="14" font-weight="bold">${escape(title)}</text>`,
  ];
  for (let v = 0; v <= maxY + 1e-9; v += yStep) {
    out.push(`<line x1="${PAD.left}" y1="${y(v).toFixed(1)}" x2="${PAD.left + plotW}" y2="${y(v).toFixed(1)}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${PAD.left - 8}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${fmt(v)}</text>`);
  }
  for (let v = 0; v <= maxX; v += 25_000) {
    out.push(`<text x="${x(v).toFixed(1)}" y="${PAD.top + plotH + 18}" text-anchor="middle">${fmt(v)}</text>`);
  }
  out.push(`<line x1="${PAD.left}" y1="${PAD.top + plotH}" x2="${PAD.left + plotW}" y2="${PAD.top + plotH}" stroke="#333"/>`);
  out.push(`<line x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${PAD.top + plotH}" stroke="#333"/>`);
  out.push(`<text x="${PAD.left + plotW / 2}" y="${HEIGHT - 10}" text-anchor="middle">stored notifications</text>`);
  out.push(`<text transform="translate(16 ${PAD.top + plotH / 2}) rotate(-90)" text-anchor="middle">creates per second</text>`);
  const levels: Array<[number, string, string]> = [
    [ceilingRps, `bare Express 5: ${fmt(ceilingRps)}`, '#555'],
    [ceilingRps * 0.8, 'target 80% (10,000)', '#d08000'],
    [ceilingRps * 0.6, 'target 60% (100,000)', '#c03030'],
  ];
  for (const [value, label, color] of levels) {
    const ly = y(value).toFixed(1);
    out.push(`<line x1="${PAD.left}" y1="${ly}" x2="${PAD.left + plotW}" y2="${ly}" stroke="${color}" stroke-dasharray="6 4"/>`);
    out.push(`<text x="${PAD.left + plotW + 6}" y="${(Number(ly) + 4).toFixed(1)}" fill="${color}">${escape(label)}</text>`);
  }
  const sorted = [...points].sort((a, b) => a.stored - b.stored);
  if (sorted.length > 1) {
    const path = sorted.map((p) => `${x(p.stored).toFixed(1)},${y(p.rps).toFixed(1)}`).join(' ');
    out.push(`<polyline points="${path}" fill="none" stroke="#1f5fbf" stroke-width="2"/>`);
  }
  sorted.forEach((p, i) => {
    // Alternate labels above and below: neighbouring points (0 and 10,000) are close on a linear axis.
    const labelY = y(p.rps) + (i % 2 === 0 ? -8 : 18);
    out.push(`<circle cx="${x(p.stored).toFixed(1)}" cy="${y(p.rps).toFixed(1)}" r="4" fill="#1f5fbf"/>`);
    out.push(`<text x="${(x(p.stored) + 6).toFixed(1)}" y="${labelY.toFixed(1)}" fill="#1f5fbf">${fmt(p.rps)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
