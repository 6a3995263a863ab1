// Shared by the benchmark scripts: percentiles and a markdown table of measurements against targets.

/** One line of a benchmark report. */
export interface Measurement {
  name: string;
  value: number;
  unit: string;
  /** The floor measured in the same run, when the target is a ratio. */
  floor?: number;
  /** The same figure for the peer (`@ivotoby/openapi-mcp-server`), measured in the same run. */
  peer?: number;
  /** The target: `value <= max` (or `value / floor <= maxRatio`), or `value >= min`. */
  max?: number;
  maxRatio?: number;
  min?: number;
}

/** The p-th percentile (0–100) of `samples`. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

/** Prints the table and returns whether every target was met. */
export function report(measurements: readonly Measurement[]): boolean {
  let ok = true;
  const rows = measurements.map((m) => {
    let verdict = '';
    if (m.maxRatio !== undefined && m.floor !== undefined) {
      const ratio = m.value / m.floor;
      const pass = ratio <= m.maxRatio;
      ok &&= pass;
      const peer = m.peer === undefined ? '' : `; peer ${(m.peer / m.floor).toFixed(2)}x`;
      verdict = `${ratio.toFixed(2)}x floor (target ≤ ${m.maxRatio}x) ${pass ? 'ok' : 'MISSED'}${peer}`;
    } else if (m.max !== undefined) {
      const pass = m.value <= m.max;
      ok &&= pass;
      verdict = `target ≤ ${m.max} ${pass ? 'ok' : 'MISSED'}`;
    } else if (m.min !== undefined) {
      const pass = m.value >= m.min;
      ok &&= pass;
      verdict = `target ≥ ${m.min} ${pass ? 'ok' : 'MISSED'}`;
    }
    const floor = m.floor === undefined ? '' : format(m.floor);
    const peer = m.peer === undefined ? '' : format(m.peer);
    return `| ${m.name} | ${format(m.value)} ${m.unit} | ${peer} | ${floor} | ${verdict} |`;
  });
  process.stdout.write(
    ['| measurement | bridge | peer | floor | verdict |', '| --- | --- | --- | --- | --- |', ...rows].join(
      '\n',
    ),
  );
  process.stdout.write('\n');
  return ok;
}

function format(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(value < 10 ? 3 : 1);
}
