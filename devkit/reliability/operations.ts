/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Emulator, EmulatorOptions, PathMatcher, RecordedRequest } from '../emulator';
import { recordingBytes } from '../emulator';
import { nodeName, run, workflowFrom } from '../engine/fixtures';
import { leads } from '../workflows';
import type { WorkflowResult } from '../engine/harness';
import type { Accounting } from './audit';
import {
	account,
	countRepeats,
	isFinalAnswer,
	leadImportProblem,
	sentAfterFinalAnswer,
} from './audit';

export type OperationName = 'Import Lead' | 'List Calls' | 'Get Recording';

/** What runs an operation's workflow: n8n-core in-process (`run`), or a real n8n (test/e2e/faults). */
export type WorkflowRunner = typeof run;

export interface OperationRun {
	itemsIn: number;
	/** Input items that ended in the success output. */
	success: number;
	/** Input items that ended in the error output. */
	error: number;
	/** Input items with no outcome, or a success the server contradicts. */
	lost: number;
	requestsSent: number;
	retries: number;
	problems: string[];
	errorMessages: string[];
	result: WorkflowResult;
}

export interface Operation {
	name: OperationName;
	/** The API path that scenario faults aim at. */
	faultPath: PathMatcher;
	/** The status of the operation's API answer when it succeeds. */
	successStatus: number;
	emulatorOptions: EmulatorOptions;
	run(
		emulator: Emulator,
		apiKey: string,
		options: IDataObject,
		runWorkflow: WorkflowRunner,
	): Promise<OperationRun>;
}

function credentialsFor(emulator: Emulator, apiKey: string) {
	return { baseUrl: emulator.baseUrl, apiKey, requestsPerMinute: 0 };
}

function summarize(
	itemsIn: number,
	accounting: Accounting,
	lost: number,
	problems: string[],
	result: WorkflowResult,
	requests: { api: RecordedRequest[]; files: RecordedRequest[] },
	retries: number,
): OperationRun {
	if (result.error) problems.push(`the workflow stopped: ${result.error.message}`);
	return {
		itemsIn,
		success: [...accounting.success.keys()].length,
		error: accounting.error.size,
		lost: lost + accounting.missing.length,
		requestsSent: requests.api.length + requests.files.length,
		retries,
		problems: [...accounting.problems, ...problems],
		errorMessages: [...accounting.error.values()].map((item) => String(item.json.error)),
		result,
	};
}

/** Import Lead over a batch of 8 leads. */
export const importLead: Operation = {
	name: 'Import Lead',
	faultPath: '/v1/leads',
	successStatus: 201,
	emulatorOptions: {},
	async run(emulator, apiKey, options, runWorkflow) {
		const items: IDataObject[] = leads(8).map((lead, idx) => ({ ...lead, idx }));
		const workflow = workflowFrom('importLeads', { items, parameters: { options } });
		const result = await runWorkflow(workflow, credentialsFor(emulator, apiKey));
		const accounting = account(items.length, result.output(nodeName(workflow)));
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
		const retries = Math.max(0, api.length - items.length);
		return summarize(items.length, accounting, lost, problems, result, { api, files: [] }, retries);
	},
};

/** A List Calls input item: its own filter value, and the Limit when Return All is off. */
type ListCallsItem = { tag: string; limit?: number };

/**
 * List Calls for input items that each filter the list by their own tag. An item without an
 * error must return `expected(item, every call id)`: each call once, in list order.
 */
export function listCallsOperation(setup: {
	seedCalls: number;
	items: ListCallsItem[];
	/** Merged over the operation's usual parameters (Return All, Limit). */
	parameters: IDataObject;
	expected: (item: ListCallsItem, everyCall: string[]) => string[];
}): Operation {
	return {
		name: 'List Calls',
		faultPath: '/v1/calls',
		successStatus: 200,
		emulatorOptions: { seedCalls: setup.seedCalls },
		async run(emulator, apiKey, options, runWorkflow) {
			const { items } = setup;
			const workflow = workflowFrom('listCalls', {
				items,
				parameters: {
					...setup.parameters,
					options: {
						...options,
						queryParameters: { parameters: [{ name: 'tag', value: '={{ $json.tag }}' }] },
					},
				},
			});
			const everyCall = emulator.calls.map((call) => call.id);
			const expected = items.map((item) => setup.expected(item, everyCall));
			const result = await runWorkflow(workflow, credentialsFor(emulator, apiKey));
			const accounting = account(items.length, result.output(nodeName(workflow)), true);
			const api = emulator.requests;
			const problems: string[] = [];
			let lost = 0;

			for (const request of api) {
				const limit = Number(request.query.limit);
				if (request.path !== '/v1/calls') problems.push(`unexpected request to ${request.path}`);
				if (!items.some((item) => item.tag === request.query.tag))
					problems.push('a page lost its filter');
				if (!(Number.isInteger(limit) && limit >= 1 && limit <= 100)) {
					problems.push(`page size ${request.query.limit} sent`);
				}
			}
			for (const duplicate of sentAfterFinalAnswer(api)) {
				problems.push(`page ${JSON.stringify(duplicate.query)} fetched again after a 200`);
			}
			items.forEach((_, index) => {
				if (accounting.error.has(index)) return;
				const ids = (accounting.success.get(index) ?? []).map((item) => item.json.id);
				if (JSON.stringify(ids) !== JSON.stringify(expected[index])) {
					lost++;
					problems.push(
						`item ${index} returned ${ids.length} calls, expected ${expected[index].length}`,
					);
				}
			});
			return summarize(
				items.length,
				accounting,
				lost,
				problems,
				result,
				{ api, files: [] },
				countRepeats(api),
			);
		},
	};
}

/** List Calls for 3 input items, each needing 2 pages, each with its own filter value. */
export const listCalls = listCallsOperation({
	seedCalls: 150,
	items: [
		{ tag: 'a', limit: 150 },
		{ tag: 'b', limit: 120 },
		{ tag: 'c', limit: 101 },
	],
	parameters: { returnAll: false, limit: '={{ $json.limit }}' },
	expected: (item, everyCall) => everyCall.slice(0, item.limit),
});

const RECORDING_BYTES = 20_000;

async function bytesOf(item: INodeExecutionData): Promise<Buffer | undefined> {
	const binary = item.binary?.data;
	return binary ? await Container.get(BinaryDataService).getAsBuffer(binary) : undefined;
}

/** Get Recording with Download for 4 calls: one API request and one file download each. */
export const getRecording: Operation = {
	name: 'Get Recording',
	faultPath: /^\/v1\/calls\/[^/]+\/recording$/,
	successStatus: 200,
	emulatorOptions: { seedCalls: 12, recordingBytes: RECORDING_BYTES },
	async run(emulator, apiKey, options, runWorkflow) {
		const ids = emulator.calls
			.filter((call) => call.has_recording)
			.slice(0, 4)
			.map((call) => call.id);
		const items = ids.map((id) => ({ id }));
		const workflow = workflowFrom('getRecording', {
			items,
			parameters: { download: true, options },
		});
		const result = await runWorkflow(workflow, credentialsFor(emulator, apiKey));
		const accounting = account(items.length, result.output(nodeName(workflow)));
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
		for (const [index, id] of ids.entries()) {
			const [item] = accounting.success.get(index) ?? [];
			if (!item) continue;
			const bytes = await bytesOf(item);
			if (!bytes?.equals(recordingBytes(id, RECORDING_BYTES))) {
				lost++;
				problems.push(`recording of ${id} stored ${bytes?.length ?? 0} wrong bytes`);
			}
		}
		const retries = countRepeats(api) + countRepeats(files, fileKey);
		return summarize(items.length, accounting, lost, problems, result, { api, files }, retries);
	},
};

export const OPERATIONS: Operation[] = [importLead, listCalls, getRecording];
