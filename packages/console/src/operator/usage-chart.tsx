/** GPU seconds per account as horizontal bars, drawn in SVG (no chart library: one bar per row). */
import type { UsageReport } from '@runload/client';

const ROW = 28;
const LABEL = 140;
const WIDTH = 600;

export function UsageChart(props: { usage: UsageReport }) {
  const rows = props.usage.accounts;
  const most = Math.max(1, ...rows.map((r) => r.gpu_seconds));
  const barRoom = WIDTH - LABEL - 70;
  return (
    <svg class="chart" role="img" aria-label={`GPU seconds per account in ${props.usage.month}`} viewBox={`0 0 ${WIDTH} ${Math.max(1, rows.length) * ROW}`}>
      {rows.map((row, index) => (
        <g key={row.account_id} transform={`translate(0 ${index * ROW})`}>
          <text x={0} y={ROW / 2 + 4}>
            {row.name.length > 20 ? `${row.name.slice(0, 19)}…` : row.name}
          </text>
          <rect x={LABEL} y={4} height={ROW - 8} width={Math.max(1, (row.gpu_seconds / most) * barRoom)} />
          <text x={LABEL + (row.gpu_seconds / most) * barRoom + 6} y={ROW / 2 + 4}>
            {Math.round(row.gpu_seconds * 10) / 10} s
          </text>
        </g>
      ))}
    </svg>
  );
}
