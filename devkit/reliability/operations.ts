import type { IDataObject } from 'n8n-workflow';

import type { Emulator, EmulatorOptions, PathMatcher, RecordedRequest } from '../emulator';
import { recordingBytes } from '../emulator';
import type { workflowFrom } from '../engine/fixtures';
import { binaryBuffer } from '../engine/harness';
import { leads } from '../workflows';
import type { Accounting } from './audit';
import { countRepeats, isFinalAnswer, leadImportProblem, sentAfterFinalAnswer } from './audit';

export type OperationName = 'Import Lead' | 'List Calls' | 'Get Recording';

/** One operation of the fault matrix: its workflow and input items, and what it must show. */
export interface Operation {
	name: OperationName;
	/** The API path that scenario faults aim at. */
	faultPath: PathMatcher;
	/** The status of the operation's API answer when it succeeds. */
	successStatus: number;
	emulatorOptions: EmulatorOptions;
	template: Parameters<typeof workflowFrom>[0];
	items: (emulator: Emulator) => IDataObject[];
	/** The node's parameters; the scenario's Options are merged into their `options`. */
	parameters: IDataObject & { options?: IDataObject };
	/** What the run shows beyond the accounting of every run: lost = successes the server contradicts. */
	check(
		emulator: Emulator,
		items: IDataObject[],
		accounting: Accounting,
	): Promise<{ lost: number; problems: string[]; retries: number }>;
}

/** Import Lead over a batch of 8 leads. */
export const importLead: Operation = {
	name: 'Import Lead',
	faultPath: '/v1/leads',
	successStatus: 201,
	emulatorOptions: {},
	template: 'importLeads',
	items: () => leads(8),
	parameters: {},
	async check(emulator, items, accounting) {
		const api = emulator.requests;
		const problems: string[] = [];
		let lost = 0;
		const phoneOf = (request: RecordedRequest) =>
			request.body === '' ? undefined : (JSON.parse(request.body) as IDataObject).phone_e164;
		for (const request of api) {
			if (request.path !== '/v1/leads') problems.push(`unexpected request to ${request.path}`);
			if (request.body === '' && request.fault === 'reset') continue; // reset before the body
			const bodyProblem = leadImportProblem(request.body);
			if (bodyProblem) problems.push(`malformed LeadImport sent: ${bodyProblem}`);
		}
		for (const duplicate of sentAfterFinalAnswer(api)) {
			problems.push(`lead ${String(phoneOf(duplicate))} sent again after a 2xx answer`);
		}
		items.forEach((input, index) => {
			const sent = api.filter((request) => request.body !== '' && phoneOf(request) === input.phone);
			const genuine = sent.filter(
				(request) => request.status === 201 && request.fault === undefined,
			);
			const processedResets = sent.filter((request) => request.fault === 'reset').length;
			const stored = emulator.leads.get(String(input.phone));
			if (stored && stored.writes !== genuine.length + processedResets) {
				problems.push(`lead ${index} written ${stored.writes} times for ${sent.length} requests`);
			}
			if (accounting.success.has(index)) {
				const last = sent[sent.length - 1];
				if (last === undefined || !isFinalAnswer(last)) lost++;
				else if (last.fault === undefined && stored?.name !== input.name) lost++;
				const json = accounting.success.get(index)![0].json;
				if (json.phone_e164 !== input.phone) problems.push(`item ${index} outputs another lead`);
			}
			if (accounting.error.has(index)) {
				if (genuine.length > 0) problems.push(`item ${index} failed although the API answered 201`);
				if (accounting.error.get(index)!.json.phone !== input.phone) {
					problems.push(`error item ${index} does not carry its input`);
				}
			}
		});
		// Every lead of the batch is valid, so each is sent once plus its retries. (Counting
		// repeated bodies would miss retries after a reset before the body, recorded empty.)
		return { lost, problems, retries: Math.max(0, api.length - items.length) };
	},
};

/** List Calls input items: each filters the list by its own tag; one without a Limit returns all. */
const listItems: Array<{ tag: string; limit?: number }> = [
	{ tag: 'a', limit: 150 },
	{ tag: 'b', limit: 120 },
	{ tag: 'c', limit: 101 },
	{ tag: 'd' },
];

/**
 * List Calls over 250 calls for 4 input items: Limits of 150, 120 and 101 (2 pages each: the
 * API's largest page is 100), and Return All (3 pages). A Limit stops at a count, Return All only when
 * the API says there is no next page: a fault on any page must neither end a list early nor
 * repeat it. Each item must return its calls once, in list order.
 */
export const listCalls: Operation = {
	name: 'List Calls',
	faultPath: '/v1/calls',
	successStatus: 200,
	emulatorOptions: { seedCalls: 250 },
	template: 'listCalls',
	items: () => listItems,
	parameters: {
		returnAll: '={{ $json.limit === undefined }}',
		limit: '={{ $json.limit }}',
		options: { queryParameters: { parameters: [{ name: 'tag', value: '={{ $json.tag }}' }] } },
	},
	async check(emulator, _, accounting) {
		const api = emulator.requests;
		const everyCall = emulator.calls.map((call) => call.id);
		const problems: string[] = [];
		let lost = 0;
		for (const request of api) {
			const limit = Number(request.query.limit);
			if (request.path !== '/v1/calls') problems.push(`unexpected request to ${request.path}`);
			if (!listItems.some((item) => item.tag === request.query.tag))
				problems.push('a page lost its filter');
			if (!(Number.isInteger(limit) && limit >= 1 && limit <= 100)) {
				problems.push(`page size ${request.query.limit} sent`);
			}
		}
		for (const duplicate of sentAfterFinalAnswer(api)) {
			problems.push(`page ${JSON.stringify(duplicate.query)} fetched again after a 200`);
		}
		listItems.forEach((item, index) => {
			if (accounting.error.has(index)) return;
			const ids = (accounting.success.get(index) ?? []).map((call) => call.json.id);
			const wanted = everyCall.slice(0, item.limit);
			if (JSON.stringify(ids) !== JSON.stringify(wanted)) {
				lost++;
				problems.push(`item ${index} returned ${ids.length} calls, expected ${wanted.length}`);
			}
		});
		return { lost, problems, retries: countRepeats(api) };
	},
};

const RECORDING_BYTES = 20_000;

/** Get Recording with Download for 4 calls: one API request and one file download each. */
export const getRecording: Operation = {
	name: 'Get Recording',
	faultPath: /^\/v1\/calls\/[^/]+\/recording$/,
	successStatus: 200,
	emulatorOptions: { seedCalls: 12, recordingBytes: RECORDING_BYTES },
	template: 'getRecording',
	items: (emulator) =>
		emulator.calls
			.filter((call) => call.has_recording)
			.slice(0, 4)
			.map((call) => ({ id: call.id })),
	parameters: { download: true },
	async check(emulator, items, accounting) {
		const { requests: api, fileRequests: files } = emulator;
		const problems: string[] = [];
		let lost = 0;
		// The API is asked again once, on purpose, when the file host refuses a signed URL.
		const refreshes = files.filter((request) => request.status === 403).length;
		const apiDuplicates = sentAfterFinalAnswer(api).length;
		if (apiDuplicates > refreshes)
			problems.push(`${apiDuplicates} recording answers asked for again`);
		// The same signed URL may be issued twice within a second: compare file paths only.
		const fileKey = (request: RecordedRequest) => request.path;
		for (const duplicate of sentAfterFinalAnswer(files, fileKey)) {
			problems.push(`recording ${duplicate.path} downloaded again after a complete download`);
		}
		for (const [index, { id }] of items.entries()) {
			const binary = accounting.success.get(index)?.[0].binary?.data;
			if (!accounting.success.has(index)) continue;
			const bytes = binary && (await binaryBuffer(binary));
			if (!bytes?.equals(recordingBytes(String(id), RECORDING_BYTES))) {
				lost++;
				problems.push(`recording of ${String(id)} stored ${bytes?.length ?? 0} wrong bytes`);
			}
		}
		return { lost, problems, retries: countRepeats(api) + countRepeats(files, fileKey) };
	},
};

export const OPERATIONS: Operation[] = [importLead, listCalls, getRecording];
