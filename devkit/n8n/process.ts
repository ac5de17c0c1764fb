/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- dev code, not in the package n8n loads: node rules do not apply */
import { spawn } from 'child_process';
import * as net from 'net';

export interface RunResult {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Runs a command to completion, collecting output; rejects only when it cannot start. */
export function runProcess(
	cmd: string,
	args: string[],
	opts: {
		cwd?: string;
		env?: NodeJS.ProcessEnv;
		timeoutMs?: number;
		/** Run as another system user (needs root), e.g. Postgres' initdb. */
		uid?: number;
		gid?: number;
	} = {},
): Promise<RunResult> {
	return new Promise((resolve, reject) => {
		const child = spawn(cmd, args, {
			cwd: opts.cwd,
			env: opts.env,
			stdio: ['ignore', 'pipe', 'pipe'],
			uid: opts.uid,
			gid: opts.gid,
		});
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
		child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		const timer = opts.timeoutMs
			? setTimeout(() => {
					stderr += `\n[harness] killed after ${opts.timeoutMs} ms`;
					child.kill('SIGKILL');
				}, opts.timeoutMs)
			: undefined;
		child.on('error', reject);
		child.on('close', (code) => {
			if (timer) clearTimeout(timer);
			resolve({ code, stdout, stderr });
		});
	});
}

/** A free TCP port on the loopback interface (tiny race window; good enough for tests). */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as net.AddressInfo;
			server.close(() => resolve(port));
		});
	});
}

/**
 * `apt-get install -y <packages>` for a test that needs one of Debian's packages (the test
 * machines are Debian and run as root); refreshes the package lists once if the first try fails.
 */
export async function aptInstall(packages: string[]): Promise<void> {
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	const install = () =>
		runProcess('apt-get', ['install', '-y', '--no-install-recommends', ...packages], {
			env,
			timeoutMs: 600_000,
		});
	let result = await install();
	if (result.code !== 0) {
		await runProcess('apt-get', ['update'], { env, timeoutMs: 600_000 });
		result = await install();
	}
	if (result.code !== 0) {
		throw new Error(`apt-get install ${packages.join(' ')} failed:\n${result.stderr.slice(-2000)}`);
	}
}
