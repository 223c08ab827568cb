/** Usage for invoices (scope `usage`, JSON or CSV) and the audit trail (scope `read`). */
import { PageQuery, UsageQuery, USAGE_CSV_HEADER } from '@runload/api-schema';
import type { Static } from '@sinclair/typebox';
import type { RunloadApi } from '@runload/core';
import type { AdminRoute } from './admin-route.js';
import { presentAuditEntry, presentUsage } from './admin-presenters.js';
import { pageLimit, readQuery } from './validate-request.js';

/** A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
function csvField(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function wantsCsv(accept: string | null): boolean {
  return (accept ?? '').split(',').some((part) => part.split(';')[0]?.trim().toLowerCase() === 'text/csv');
}

export function usageAdminRoutes(api: RunloadApi): AdminRoute[] {
  return [
    {
      method: 'GET',
      path: '/usage',
      scope: 'usage',
      handler: async (ctx) => {
        const query = readQuery<Static<typeof UsageQuery>>(UsageQuery, ctx.event.url.searchParams);
        const limit = pageLimit(query.limit);
        const report = await api.usage.execute({ month: query.month, cursor: query.cursor ?? null, ...(limit !== undefined ? { limit } : {}) });
        const accounts = report.accounts.map(presentUsage);
        if (!wantsCsv(ctx.event.req.headers.get('accept'))) return { status: 200, body: { month: report.month, accounts, next_cursor: report.nextCursor } };
        const rows = accounts.map((a) => [a.account_id, a.name, a.tier, a.gpu_seconds, a.runs.succeeded, a.runs.failed, a.runs.canceled, a.runs.expired].map(csvField).join(','));
        const csv = `${[USAGE_CSV_HEADER, ...rows].join('\r\n')}\r\n`;
        const bytes = new TextEncoder().encode(csv);
        return {
          status: 200,
          stream: new Blob([bytes]).stream(),
          headers: {
            'Content-Type': 'text/csv; charset=utf-8',
            'Content-Length': String(bytes.byteLength),
            'Content-Disposition': `attachment; filename="runload-usage-${report.month}.csv"`,
            ...(report.nextCursor ? { 'X-Next-Cursor': report.nextCursor } : {}),
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/audit',
      scope: 'read',
      handler: async (ctx) => {
        const query = readQuery<Static<typeof PageQuery>>(PageQuery, ctx.event.url.searchParams);
        const limit = pageLimit(query.limit);
        const page = await api.audit.list({ cursor: query.cursor ?? null, ...(limit !== undefined ? { limit } : {}) });
        return { status: 200, body: { entries: page.entries.map(presentAuditEntry), next_cursor: page.nextCursor } };
      },
    },
  ];
}
