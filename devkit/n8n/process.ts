/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- dev code, not in the package n8n loads: node rules do not apply */
import { spawn, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';

export interface RunResult {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** A system user to run a child as (needs root), e.g. Postgres' initdb. */
export interface SystemUser {
	uid: number;
	gid: number;
}

/** Runs a command to completion, collecting output; rejects only when it cannot start. */
export function runProcess(
	cmd: string,
	args: string[],
	opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } & Partial<SystemUser> = {},
): Promise<RunResult> {
	return new Promise((resolve, reject) => {
		const { cwd, env, uid, gid } = opts;
		const child = spawn(cmd, args, { cwd, env, uid, gid, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** A long-running child whose output goes to a log file; stopped by a signal, then SIGKILL. */
export class ChildService {
	private constructor(
		readonly name: string,
		readonly logFile: string,
		private readonly child: ChildProcess,
	) {}

	static spawn(
		name: string,
		command: string,
		args: string[],
		options: { logFile: string; env?: NodeJS.ProcessEnv; cwd?: string; user?: SystemUser },
	): ChildService {
		const log = fs.openSync(options.logFile, 'a');
		const child = spawn(command, args, {
			cwd: options.cwd,
			env: options.env ?? process.env,
			stdio: ['ignore', log, log],
			...options.user,
		});
		fs.closeSync(log);
		// A spawn error (binary missing) would otherwise crash the test process.
		child.on('error', (error) => fs.appendFileSync(options.logFile, `\n[harness] ${error}\n`));
		return new ChildService(name, options.logFile, child);
	}

	get pid(): number | undefined {
		return this.child.pid;
	}

	get exited(): boolean {
		return this.child.exitCode !== null || this.child.signalCode !== null;
	}

	log(): string {
		return fs.existsSync(this.logFile) ? fs.readFileSync(this.logFile, 'utf8') : '';
	}

	/** Polls `ready` until it is true; fails early if the process exits. */
	async waitUntil(ready: () => Promise<boolean>, timeoutMs: number): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		// The log's end goes into the error: the folder holding it is usually removed on failure.
		const tail = () => this.log().trimEnd().split('\n').slice(-30).join('\n');
		while (Date.now() < deadline) {
			if (this.exited) throw new Error(`${this.name} exited:\n${tail()}`);
			if (await ready().catch(() => false)) return;
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
		throw new Error(`${this.name} not ready within ${timeoutMs} ms:\n${tail()}`);
	}

	/** `signal`, then SIGKILL if the process has not exited after `graceMs`. */
	async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000): Promise<void> {
		if (this.exited || this.child.pid === undefined) return;
		const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
		this.child.kill(signal);
		const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
		await exited;
		clearTimeout(timer);
	}
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
	const args = ['install', '-y', '--no-install-recommends', ...packages];
	let result = await runProcess('apt-get', args, { env, timeoutMs: 600_000 });
	if (result.code !== 0) {
		await runProcess('apt-get', ['update'], { env, timeoutMs: 600_000 });
		result = await runProcess('apt-get', args, { env, timeoutMs: 600_000 });
	}
	if (result.code !== 0) {
		throw new Error(`apt-get install ${packages.join(' ')} failed:\n${result.stderr.slice(-2000)}`);
	}
}
