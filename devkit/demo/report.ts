/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/** The demo's printed report: short, aligned, readable in an 100-column terminal. */
import * as path from 'path';

import type { McpTool } from './mcpClient';
import type { ImportSummary } from './examples';
import type { ExportRun, ExportSummary, RecordingUploadRun } from './recordingExamples';

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

/** Words of `text` in lines of at most `width` characters; a longer word gets a line of its own. */
export function wrap(text: string, width: number): string[] {
	const lines: string[] = [];
	let current = '';
	for (const word of text.split(/\s+/).filter(Boolean)) {
		if (current && current.length + 1 + word.length > width) {
			lines.push(current);
			current = word;
		} else {
			current = current ? `${current} ${word}` : word;
		}
	}
	return current ? [...lines, current] : lines;
}

/** `text` in a column of `width`: shortened after its last whole word that fits, with "...". */
function column(text: string, width: number): string {
	if (text.length <= width) return text.padEnd(width);
	const [first] = wrap(text, width - 3);
	return `${first.length <= width - 3 ? first : first.slice(0, width - 3)}...`.padEnd(width);
}

/** A message after a label, wrapped at word boundaries to the report's width. */
function message(label: string, text: string): void {
	const indent = ' '.repeat(label.length);
	wrap(text, WIDTH - label.length).forEach((part, index) =>
		line(`${index === 0 ? label : indent}${part}`),
	);
}

/** Text width inside the report's three-space margin: a 100-column terminal. */
const WIDTH = 94;

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
		message('            ', row.reason);
	}
	line(`Rejected rows with their reasons: ${summary.rejectedFile}`);
}

export function exportReport(summary: ExportSummary, run: ExportRun, folder: string): void {
	const { saved, withoutRecording, emitted } = summary;
	line(
		`${run.recorded + run.missed} new calls (${run.missed} missed), recordings ready ${run.processingMs / 1000} s after their call; ${summary.polls} checks`,
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
	message(
		'',
		`${withoutRecording.length} calls without a recording, listed in the missing-recordings file: ${withoutRecording.join(', ')}`,
	);
	line(`Calls emitted twice: ${emitted.length - new Set(emitted).size}`);
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
	message('    -> ', outcome);
}

export function s3Report(summary: RecordingUploadRun, bucket: string): void {
	const { emitted, uploaded, withoutRecording, executions } = summary;
	message(
		'',
		`${emitted.length} new calls arrived; the checks started the workflow ${executions.length === 1 ? 'once' : `${executions.length} times`} with ${emitted.join(', ')} (oldest first)`,
	);
	for (const [key, bytes] of uploaded) line(`  uploaded ${bucket}/${key} (${bytes.length} bytes)`);
	for (const callId of withoutRecording)
		line(`  missed   ${callId}: no recording, noted under recordings/missing/`);
}
