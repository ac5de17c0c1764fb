/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, not in the package n8n loads: node rules do not apply */
/** A real n8n (the e2e harness's) with this package installed, plus the webhook calls the bench makes. */
import {
	createN8nSandbox,
	packAndInstall,
	REPO_DIR,
	startN8nServer,
	type CredentialJson,
	type N8nServer,
	type SandboxOptions,
	type WorkflowJson,
} from '../../devkit/n8n';
import { onCleanup } from './cleanup';
import { findN8nPid } from './proc';

export interface BenchServer {
	name: string;
	server: N8nServer;
	/** PID of the `n8n start` process: where CPU and memory are read. */
	pid: number;
	/** Our credential ids this server already has (several workflows share one). */
	credentials: Set<string>;
}

export async function startBenchServer(
	name: string,
	options: SandboxOptions = {},
): Promise<BenchServer> {
	const sandbox = await createN8nSandbox(options);
	onCleanup(`${name} sandbox`, () => sandbox.cleanup());
	// BENCH_PACKAGE_DIR: measure another build of the package (e.g. before/after a change).
	await packAndInstall(process.env.BENCH_PACKAGE_DIR ?? REPO_DIR, sandbox.userFolder);
	const server = await startN8nServer(sandbox);
	// Registered after the sandbox, so it stops before its folder is removed.
	onCleanup(`${name} n8n`, () => server.stop());
	const pid = findN8nPid(sandbox.install.n8nBin, sandbox.userFolder);
	return { name, server, pid, credentials: new Set() };
}

export interface Deployed {
	workflowId: string;
	hookPath: string;
}

/** Creates the credentials n8n does not know yet, then publishes the workflow. */
export async function deploy(
	bench: BenchServer,
	workflow: WorkflowJson,
	hookPath: string,
	credentials: CredentialJson[] = [],
): Promise<Deployed> {
	for (const credential of credentials) {
		if (bench.credentials.has(credential.id)) continue;
		await bench.server.createCredential(credential);
		bench.credentials.add(credential.id);
	}
	const workflowId = await bench.server.deployWorkflow(workflow);
	return { workflowId, hookPath };
}

export interface Triggered {
	status: number;
	body: unknown;
	/** From sending the webhook call until n8n answered (the workflow's last node finished). */
	wallMs: number;
}

/** Runs a deployed workflow once; the webhook answers when its last node has finished. */
export async function trigger(
	bench: BenchServer,
	deployed: Deployed,
	input: unknown,
): Promise<Triggered> {
	// Publishing registers the webhook asynchronously; a 404 starts no execution, so retry it,
	// and time only the call that ran the workflow.
	const deadline = Date.now() + 20_000;
	for (;;) {
		const started = performance.now();
		const { status, body } = await bench.server.callWebhook(deployed.hookPath, input);
		const wallMs = performance.now() - started;
		const unregistered = status === 404 && JSON.stringify(body).includes('not registered');
		if (!unregistered || Date.now() > deadline) return { status, body, wallMs };
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}
