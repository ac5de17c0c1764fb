/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, not in the package n8n loads: node rules do not apply */
/** The servers the bench starts: a real n8n (the e2e harness's) with this package, the API emulator. */
import { randomBytes } from 'crypto';

import { buildAndInstall } from '../../devkit/demo/build';
import { startEmulator, type EmulatorOptions } from '../../devkit/emulator';
import {
	createN8nSandbox,
	packAndInstall,
	REPO_DIR,
	startN8nServer,
	type N8nSandbox,
	type SandboxOptions,
} from '../../devkit/n8n';
import { onCleanup } from './cleanup';
import { findN8nPid, withPeakRss } from './proc';
import { sleep } from './stats';
import type { BuiltWorkflow } from './workflows';

/**
 * A sandbox with the package: BENCH_PACKAGE_DIR's build (to measure another, e.g. before/after a
 * change), else this one's, as it is (`npm run bench` builds first) or, given `log`, built first
 * if its sources changed.
 */
export async function sandboxWithPackage(
	name: string,
	options: SandboxOptions,
	log?: (message: string) => void,
): Promise<N8nSandbox> {
	const sandbox = await createN8nSandbox(options);
	onCleanup(`${name} sandbox`, () => sandbox.cleanup());
	const other = process.env.BENCH_PACKAGE_DIR;
	if (other || !log) await packAndInstall(other ?? REPO_DIR, sandbox.userFolder);
	else await buildAndInstall(sandbox.userFolder, log);
	return sandbox;
}

export type BenchServer = Awaited<ReturnType<typeof startBenchServer>>;

export async function startBenchServer(
	name: string,
	options: SandboxOptions = {},
	log?: (message: string) => void,
) {
	const sandbox = await sandboxWithPackage(name, options, log);
	const server = await startN8nServer(sandbox);
	// Registered after the sandbox, so it stops before its folder is removed.
	onCleanup(`${name} n8n`, () => server.stop());
	// pid: the `n8n start` process, where CPU and memory are read; credentials: our credential ids
	// it already has (several workflows share one).
	return { name, sandbox, server, pid: findN8nPid(sandbox), credentials: new Set<string>() };
}

export type Deployed = { workflowId: string; hookPath: string };

/** Creates the workflow's credential if n8n does not know it yet, then publishes the workflow. */
export async function deploy(bench: BenchServer, built: BuiltWorkflow): Promise<Deployed> {
	const { credential } = built;
	if (credential && !bench.credentials.has(credential.id)) {
		await bench.server.createCredential(credential);
		bench.credentials.add(credential.id);
	}
	const workflowId = await bench.server.deployWorkflow(built.workflow);
	return { workflowId, hookPath: built.hookPath };
}

export type Triggered = { status: number; body: unknown; wallMs: number };

/** Runs a deployed workflow once; the webhook answers when its last node has finished. */
export async function trigger(
	bench: BenchServer,
	deployed: Deployed,
	input: unknown,
): Promise<Triggered> {
	// Publishing registers the webhook asynchronously; a 404 starts no execution, so retry it,
	// and time (wallMs) only the call that ran the workflow, until n8n answered.
	const deadline = Date.now() + 20_000;
	for (;;) {
		const started = performance.now();
		const { status, body } = await bench.server.callWebhook(deployed.hookPath, input);
		const wallMs = performance.now() - started;
		const unregistered = status === 404 && JSON.stringify(body).includes('not registered');
		if (!unregistered || Date.now() > deadline) return { status, body, wallMs };
		await sleep(100);
	}
}

/**
 * Three runs of a deployed workflow, each once n8n is idle, with n8n's RSS just before and its
 * peak during the run; `check` throws on a wrong answer, else returns what the run keeps of it.
 */
export async function memoryRuns<T>(
	server: BenchServer,
	deployed: Deployed,
	check: (answer: Triggered) => T | Promise<T>,
) {
	const runs: Array<T & { wallMs: number; baselineMb: number; peakMb: number }> = [];
	for (let repeat = 0; repeat < 3; repeat++) {
		const { value, ...memory } = await withPeakRss(server.pid, () => trigger(server, deployed, {}));
		runs.push({ ...memory, wallMs: value.wallMs, ...(await check(value)) });
	}
	return runs;
}

export const failed = (what: string, { status, body }: Triggered) =>
	new Error(`${what} failed: HTTP ${status} ${JSON.stringify(body)}`);

export type BenchEmulator = Awaited<ReturnType<typeof startBenchEmulator>>;

/**
 * The API emulator on loopback with a new key: the node keeps one rate budget per key for the
 * life of the n8n process, so reusing a key would carry one row's pacing state into the next.
 */
export async function startBenchEmulator(options: Omit<EmulatorOptions, 'keys' | 'host'>) {
	const apiKey = `pf_live_${randomBytes(33).toString('base64url').slice(0, 43)}`;
	const emulator = await startEmulator({
		...options,
		host: '127.0.0.1',
		keys: [{ key: apiKey, scopes: ['leads:write', 'calls:read', 'recordings:read'] }],
	});
	const stop = onCleanup('emulator', () => emulator.stop());
	return { emulator, apiKey, stop };
}

/** Runs `work` with an emulator of its own, stopped when it ends (also on failure). */
export async function withEmulator<T>(
	options: Omit<EmulatorOptions, 'keys' | 'host'>,
	work: (bench: BenchEmulator) => Promise<T>,
): Promise<T> {
	const bench = await startBenchEmulator(options);
	try {
		return await work(bench);
	} finally {
		await bench.stop();
	}
}
