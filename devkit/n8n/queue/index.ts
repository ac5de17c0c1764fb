/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * n8n in queue mode, as users scale it: Postgres and Redis, one `n8n start` (the main process:
 * editor, REST API, production webhooks) and N `n8n worker` processes that run the executions.
 * All n8n processes share one user folder (so one installed copy of the package) and one
 * encryption key. Everything is a child of the caller on 127.0.0.1 and stops in stop().
 */
import * as path from 'path';

import { n8nModulesDir } from '../n8n-install';
import { ChildService, freePort } from '../process';
import type { N8nSandbox } from '../sandbox';
import { N8nServer } from '../server';
import type { RunData } from '../types';
import { startPostgres, startRedis, type Service } from './services';

export interface QueueOptions {
	workers: number;
	/**
	 * Jobs each worker runs at once (n8n's default is 10). With 1, executions started together
	 * land on different workers, which is what "every worker busy" needs.
	 */
	concurrency?: number;
}

export interface N8nWorker {
	name: string;
	service: ChildService;
	/** Ids of the executions this worker started, from its log ("Worker started execution N"). */
	executionIds(): string[];
}

type StoredResultData = Partial<RunData['data']['resultData']> & {
	error?: { message?: string; description?: string };
};

export interface QueueExecution {
	id: string;
	status: string;
	mode: string;
	workflowId: string;
}

export interface N8nQueue {
	main: N8nServer;
	workers: N8nWorker[];
	/** Executions of a workflow as n8n stored them in Postgres (REST API, newest first). */
	executions(workflowId: string): Promise<QueueExecution[]>;
	/** The error message of the workflow's latest failed execution, if any. */
	lastError(workflowId: string): Promise<string | undefined>;
	/** What an execution stored (its `resultData`), read back through the REST API. */
	resultData(executionId: string): Promise<StoredResultData | undefined>;
	/** Name of the worker that ran an execution. */
	workerOf(executionId: string): string | undefined;
	/** Stops workers, main, Redis and Postgres; safe to call twice. Leaves the sandbox folder. */
	stop(): Promise<void>;
}

const TIMEOUT_MS = 180_000;

async function startWorker(sandbox: N8nSandbox, name: string, concurrency: number) {
	const [healthPort, brokerPort] = [await freePort(), await freePort()];
	const service = ChildService.spawn(
		name,
		sandbox.install.node24Path,
		[sandbox.install.n8nBin, 'worker', `--concurrency=${concurrency}`],
		{
			logFile: path.join(sandbox.userFolder, `n8n-${name}.log`),
			cwd: sandbox.userFolder,
			env: {
				...sandbox.env,
				// Each process starts its own task broker; the health server tells when it is ready.
				N8N_RUNNERS_BROKER_PORT: String(brokerPort),
				QUEUE_HEALTH_CHECK_ACTIVE: 'true',
				QUEUE_HEALTH_CHECK_PORT: String(healthPort),
				N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
			},
		},
	);
	const worker: N8nWorker = {
		name,
		service,
		executionIds: () =>
			[...service.log().matchAll(/Worker started execution (\d+)/g)].map((match) => match[1]),
	};
	return { worker, ready: `http://127.0.0.1:${healthPort}/healthz/readiness` };
}

/**
 * Starts the whole queue on a sandbox whose user folder already has the package installed.
 * On any failure, what was started is stopped again before the error is thrown.
 */
export async function startN8nQueue(
	baseSandbox: N8nSandbox,
	options: QueueOptions,
): Promise<N8nQueue> {
	const logDir = baseSandbox.userFolder;
	// Layers, stopped newest first (workers, then main, then the services they use); the
	// processes of one layer stop at the same time.
	const started: Array<Array<{ stop(): Promise<void> }>> = [];
	const stopAll = async () => {
		for (let layer = started.pop(); layer; layer = started.pop()) {
			await Promise.all(layer.map((part) => part.stop()));
		}
	};
	try {
		// Both are waited for, so a failure of one never leaves the other running.
		const settled = await Promise.allSettled([startPostgres(logDir), startRedis(logDir)]);
		started.push(
			settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : [])),
		);
		const failed = settled.find((result) => result.status === 'rejected');
		if (failed) throw failed.reason;
		const [postgres, redis] = started[0] as Service[];
		const sandbox: N8nSandbox = {
			...baseSandbox,
			env: {
				...baseSandbox.env,
				EXECUTIONS_MODE: 'queue',
				DB_TYPE: 'postgresdb',
				DB_POSTGRESDB_HOST: '127.0.0.1',
				DB_POSTGRESDB_PORT: String(postgres.port),
				DB_POSTGRESDB_DATABASE: 'postgres',
				DB_POSTGRESDB_USER: 'postgres',
				DB_POSTGRESDB_PASSWORD: '',
				QUEUE_BULL_REDIS_HOST: '127.0.0.1',
				QUEUE_BULL_REDIS_PORT: String(redis.port),
				// Workers cannot read the main process's files: queue mode keeps binaries in the database.
				N8N_DEFAULT_BINARY_DATA_MODE: 'database',
				N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5',
			},
		};
		// Main first: it creates the schema the workers expect.
		const main = await N8nServer.start(sandbox, TIMEOUT_MS);
		started.push([main]);
		const starting = Array.from({ length: options.workers }, (_, index) =>
			startWorker(sandbox, `worker-${index + 1}`, options.concurrency ?? 10),
		);
		const spawned = await Promise.all(starting);
		const workers = spawned.map(({ worker }) => worker);
		started.push(workers.map((worker) => worker.service));
		await Promise.all(
			spawned.map(({ worker, ready }) =>
				worker.service.waitUntil(async () => (await fetch(ready)).ok, TIMEOUT_MS),
			),
		);
		const list = async (workflowId: string) => {
			const filter = encodeURIComponent(JSON.stringify({ workflowId }));
			const page = await main.rest<{ results: QueueExecution[] }>(
				'GET',
				`/executions?filter=${filter}`,
			);
			return page.results;
		};
		const resultData = async (executionId: string) => {
			const stored = await main.rest<{ data?: string }>('GET', `/executions/${executionId}`);
			// Stored as flatted text; the flatted package comes with n8n.
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			const flatted = require(path.join(n8nModulesDir(sandbox.install), 'flatted')) as {
				parse(text: string): { resultData?: StoredResultData };
			};
			return stored.data ? flatted.parse(stored.data).resultData : undefined;
		};
		return {
			main,
			workers,
			executions: list,
			lastError: async (workflowId) => {
				const failed = (await list(workflowId)).find((execution) => execution.status !== 'success');
				const error = failed && (await resultData(failed.id))?.error;
				return error ? [error.message, error.description].filter(Boolean).join(': ') : undefined;
			},
			resultData,
			workerOf: (executionId) =>
				workers.find((worker) => worker.executionIds().includes(String(executionId)))?.name,
			stop: stopAll,
		};
	} catch (error) {
		await stopAll();
		throw error;
	}
}
