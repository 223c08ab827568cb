/**
 * A second baseline: a bare h3 app on the same Node adapter as runload, answering the poll's bytes
 * from a route with a path parameter. What h3 itself costs, before any of runload's work.
 * Prints `listening on http://…`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { H3, toNodeHandler } from 'h3';
import { FastResponse } from 'srvx';

const body = process.env['BASELINE_BODY'] ?? '{}';
const app = new H3();
app.get('/api/v1/runs/:id', () => new FastResponse(body, { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' } }));
const server = createServer(toNodeHandler(app));
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`));
