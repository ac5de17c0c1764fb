import type {
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { CREDENTIAL_TEST, testCredential } from '../shared/credentialCheck';
import { queryParametersField } from '../shared/calls/queryParameters';
import { optionsCollection } from '../shared/transport/retry';
import { pollCalls } from './poll';
import {
	DEFAULT_CALLS_PER_EXECUTION,
	DEFAULT_LOOK_BACK_HOURS,
	DEFAULT_PROCESSING_LIMIT_HOURS,
	DEFAULT_RECORDING_WAIT_MINUTES,
} from './settings';

const triggerOptions: INodeProperties[] = [
	{
		displayName: 'Calls per Execution',
		name: 'callsPerExecution',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: DEFAULT_CALLS_PER_EXECUTION,
		description:
			'How many new calls each execution gets. A check takes every new call, one execution after another.',
	},
	{
		displayName: 'Add Summary Item',
		name: 'summaryItem',
		type: 'boolean',
		default: false,
		description:
			'Whether to end each check that brought calls with one more item counting them (summary: true; calls delivered, with a file, missed, still processing, held for later), for a morning message',
	},
	{
		displayName: 'Calls Since',
		name: 'callsSince',
		type: 'dateTime',
		default: '',
		description:
			"Also start with the calls made since this time (in the workflow's time zone), oldest first. Empty: only calls that arrive after the workflow is published. Set another date later to get every call since then again, once (to redo a day).",
	},
	{
		displayName: 'Deliver Failed Calls Again',
		name: 'retryFailedCalls',
		type: 'boolean',
		default: true,
		description:
			'Whether to start the workflow again with the calls of an execution that failed (a full disk, a destination down), at each check until it succeeds or Give Up After has passed. Their items get failedExecutions (how many failed). Off: retry failed executions yourself.',
	},
	{
		displayName: 'Keep Call Order',
		name: 'keepCallOrder',
		type: 'boolean',
		default: false,
		displayOptions: { show: { '/downloadRecording': [true] } },
		description:
			'Whether to also hold back the calls after a call whose recording is not ready yet, so calls always come oldest first. Off: each call comes as soon as its recording is ready.',
	},
	{
		displayName: 'List Order',
		name: 'listOrder',
		type: 'options',
		options: [
			{
				name: 'Detect',
				value: 'detect',
				description:
					"From the calls' times, or without times from where new calls appear (first page or last)",
			},
			{ name: 'Newest First', value: 'newest', description: 'New calls appear on the first page' },
			{
				name: 'Oldest First',
				value: 'oldest',
				description: 'New calls are appended on the last page',
			},
		],
		default: 'detect',
		description:
			'The order in which the service lists calls. Detect works it out; set it when the calls carry no time and the trigger asks for it.',
	},
	{
		displayName: 'Give Up After (Hours)',
		name: 'processingLimitHours',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: DEFAULT_PROCESSING_LIMIT_HOURS,
		description:
			'How long a call stays due: a call whose execution failed comes again at each check, then once more with lastAttempt true. With Download Recording, a recording still being processed is asked for at each check, then the call comes without a file (recordingStatus "processing").',
	},
	{
		displayName: 'Look Back (Hours)',
		name: 'lookBackHours',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: DEFAULT_LOOK_BACK_HOURS,
		description:
			'A call that shows up in the list late (long calls are often listed once they end) still comes if it started at most this long before the newest call delivered. Each check reads the calls of this period again: about one request more per 100 calls in it.',
	},
	queryParametersField,
	{
		displayName: 'Wait for Recording (Minutes)',
		name: 'waitForRecording',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: DEFAULT_RECORDING_WAIT_MINUTES,
		displayOptions: { show: { '/downloadRecording': [true] } },
		description:
			'How long a check waits for recordings not ready yet. Then a call without one comes without a file (recordingStatus "none"); one still being processed waits on (Give Up on Processing After).',
	},
];

export class LeadCallAccessTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Lead & Call Access Trigger',
		name: 'leadCallAccessTrigger',
		icon: {
			light: 'file:leadCallAccess.svg',
			dark: 'file:leadCallAccess.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: 'On new call',
		description: 'Starts the workflow when a new call appears in Lead & Call Access',
		defaults: { name: 'Lead & Call Access Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'leadCallAccessApi', required: true, testedBy: 'leadCallAccessApiTest' }],
		properties: [
			{
				// Names the trigger in the nodes panel ("On new call"), like the canvas subtitle.
				displayName: 'Trigger On',
				name: 'event',
				type: 'options',
				noDataExpression: true,
				options: [{ name: 'New Call', value: 'newCall', action: 'On new call' }],
				default: 'newCall',
			},
			{
				displayName:
					'Starts the workflow once for each new call, oldest first. Publishing starts from now: past calls come only when Calls Since is set.',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Download Recording',
				name: 'downloadRecording',
				type: 'boolean',
				default: false,
				description:
					"Whether to also download each new call's recording and attach it to the item. A call whose recording is not ready yet waits for it (Options › Wait for Recording).",
			},
			{
				displayName: 'Put Output File in Field',
				name: 'binaryPropertyName',
				type: 'string',
				default: 'data',
				required: true,
				displayOptions: { show: { downloadRecording: [true] } },
				hint: 'The name of the output binary field to put the recording in',
			},
			optionsCollection(triggerOptions),
		],
	};

	// n8n takes the credential test from whichever node using the credential it finds first.
	methods = { credentialTest: { [CREDENTIAL_TEST]: testCredential } };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollCalls.call(this);
	}
}
