/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/** The demo's printed report: short, aligned, readable in an 100-column terminal. */
import * as path from 'path';

import type { McpTool } from './mcpClient';
import type { ExportSummary, ImportSummary } from './examples';

const started = Date.now();
export const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;

export function step(message: string): void {
	process.stdout.write(`[${elapsed().padStart(6)}] ${message}\n`);
}

export function heading(text: string): void {
	process.stdout.write(`\n${text}\n`);
}

export function line(text = ''): void {
	process.stdout.write(`   ${text}\n`);
}

const cut = (text: string, width: number) =>
	text.length > width ? `${text.slice(0, width - 3)}...` : text;
const column = (text: string, width: number) => cut(text, width).padEnd(width);

export function importReport(summary: ImportSummary): void {
	const { rows, imported, rejected } = summary;
	line(
		`${rows.length} rows read from leads.csv: ${imported.length} imported, ${rejected.length} rejected`,
	);
	for (const lead of imported) {
		const fixed = lead.phone.startsWith('+') ? '' : '  (national number completed)';
		line(
			`  imported  ${column(lead.name, 18)} ${column(lead.phone, 17)} -> ${lead.phoneE164}${fixed}`,
		);
	}
	for (const row of rejected) {
		line(`  rejected  ${column(row.name, 18)} ${row.phone || '(empty)'}`);
		line(`            ${row.reason}`);
	}
	line(`Rejected rows with their reasons: ${summary.rejectedFile}`);
}

export function exportReport(summary: ExportSummary, folder: string): void {
	const { listed, saved, failed } = summary;
	const first = String(listed[0]?.id);
	const last = String(listed[listed.length - 1]?.id);
	line(
		`${listed.length} calls listed (${first} ... ${last}), ${summary.withRecording} with a recording`,
	);
	const bytes = saved.reduce((total, file) => total + file.bytes, 0);
	const types = [...new Set(saved.map((file) => file.mimeType))].join(', ');
	line(
		`${saved.length} recordings saved (${(bytes / 1024).toFixed(0)} KiB, ${types}) to ${folder}${path.sep}`,
	);
	line(
		`  e.g. ${saved
			.slice(0, 3)
			.map((file) => path.basename(file.file))
			.join(', ')}, ...`,
	);
	for (const failure of failed) line(`  not saved: ${failure.callId}: ${failure.error}`);
}

export function toolsReport(url: string, tools: McpTool[]): void {
	line(`n8n serves MCP at ${url}`);
	line(
		`tools: ${tools
			.map((tool) => tool.name)
			.sort()
			.join(', ')}`,
	);
}

export function toolCall(name: string, args: unknown, outcome: string): void {
	line(`  ${name} ${JSON.stringify(args)}`);
	line(`    -> ${cut(outcome, 90)}`);
}
