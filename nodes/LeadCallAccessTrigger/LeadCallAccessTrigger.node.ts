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
import { optionsCollection } from '../shared/options';
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
			'How many new calls each run of the workflow gets. Each time the trigger looks, it takes every new call, one run after another.',
	},
	{
		displayName: 'Add Summary Item',
		name: 'summaryItem',
		type: 'boolean',
		default: false,
		description:
			'Whether to end each look that brought calls with one more item counting them (its summary field is true), for a morning message. See the Docs link for its fields.',
	},
	{
		displayName: 'Calls Since',
		name: 'callsSince',
		type: 'dateTime',
		default: '',
		description:
			"Also start with the calls made since this time (workflow's time zone). Empty: only calls after publishing. Set another date later to get every call since then again, once: to redo a day.",
	},
	{
		displayName: 'Deliver Failed Calls Again',
		name: 'retryFailedCalls',
		type: 'boolean',
		default: true,
		description:
			'Whether the calls of a run that failed (a full disk, a destination down) come again the next time, until a run with them succeeds or Give Up After has passed. Off: retry failed runs yourself.',
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
					"From the calls' times, or without times from where new calls show up (first page or last)",
			},
			{ name: 'Newest First', value: 'newest', description: 'New calls appear on the first page' },
			{
				name: 'Oldest First',
				value: 'oldest',
				description: 'New calls are added on the last page',
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
			'How long a call whose run failed keeps coming again (then once more, marked last attempt), and how long a recording still being processed is waited for (then its call comes without a file)',
	},
	{
		displayName: 'Look Back (Hours)',
		name: 'lookBackHours',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: DEFAULT_LOOK_BACK_HOURS,
		description:
			'A call listed late (long calls often show up once they end) still comes if it started at most this long before the newest call delivered. Costs about one request more per 100 calls in it.',
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
			'How long to wait for recordings not ready yet. Then a call without one comes without a file; one the service says is still being processed waits on, up to Give Up After.',
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
				hint: 'The name the recording file gets in the item: the node that saves or sends it (such as Write Files to Disk) asks for this name',
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
