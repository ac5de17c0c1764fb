/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/require-node-api-error -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The two services n8n's queue mode needs, Postgres and Redis, each a child process of the
 * caller on a free 127.0.0.1 port with its data in a temp folder. Debian's packages are installed
 * with apt-get when a binary is missing (the test machines are Debian and run as root).
 */
import { spawn, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';

import { aptInstall, freePort, runProcess } from '../process';

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

	logTail(lines = 30): string {
		return this.log().trimEnd().split('\n').slice(-lines).join('\n');
	}

	/** Polls `ready` until it is true; fails early if the process exits. */
	async waitUntil(ready: () => Promise<boolean>, timeoutMs: number): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		while (Date.now() < deadline) {
			// The log's end goes into the error: the folder holding it is usually removed on failure.
			if (this.exited) throw new Error(`${this.name} exited:\n${this.logTail()}`);
			if (await ready().catch(() => false)) return;
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
		throw new Error(`${this.name} not ready within ${timeoutMs} ms:\n${this.logTail()}`);
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

export interface SystemUser {
	uid: number;
	gid: number;
}

function systemUser(name: string): SystemUser | undefined {
	const line = fs
		.readFileSync('/etc/passwd', 'utf8')
		.split('\n')
		.find((entry) => entry.startsWith(`${name}:`));
	if (!line) return undefined;
	const [, , uid, gid] = line.split(':');
	return { uid: Number(uid), gid: Number(gid) };
}

function onPath(binary: string): string | undefined {
	return (process.env.PATH ?? '')
		.split(':')
		.map((dir) => path.join(dir, binary))
		.find((file) => fs.existsSync(file));
}

/** Debian keeps the server binaries in /usr/lib/postgresql/<major>/bin; the newest wins. */
function postgresBinDir(): string | undefined {
	const root = '/usr/lib/postgresql';
	const majors = fs.existsSync(root)
		? fs
				.readdirSync(root)
				.filter((major) => fs.existsSync(path.join(root, major, 'bin', 'postgres')))
				.sort((a, b) => Number(b) - Number(a))
		: [];
	if (majors.length > 0) return path.join(root, majors[0], 'bin');
	const initdb = onPath('initdb');
	return initdb && path.dirname(fs.realpathSync(initdb));
}

async function ensureBinary<T>(find: () => T | undefined, debianPackage: string): Promise<T> {
	const found = find();
	if (found) return found;
	await aptInstall([debianPackage]);
	const installed = find();
	if (!installed) throw new Error(`${debianPackage} installed, but its binaries are not found`);
	return installed;
}

export interface Postgres {
	port: number;
	user: string;
	database: string;
	service: ChildService;
	stop(): Promise<void>;
}

/**
 * A throw-away cluster: initdb into a temp folder, trust authentication on 127.0.0.1 only,
 * fsync off (nothing here needs to survive a crash). Postgres refuses to run as root, so as
 * root it runs as the `postgres` user the Debian package creates.
 */
export async function startPostgres(logDir: string): Promise<Postgres> {
	const binDir = await ensureBinary(postgresBinDir, 'postgresql');
	const user = process.getuid?.() === 0 ? systemUser('postgres') : undefined;
	if (process.getuid?.() === 0 && !user) throw new Error('no postgres system user');
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lca-pg-'));
	const removeData = () => fs.rmSync(dataDir, { recursive: true, force: true });
	if (user) fs.chownSync(dataDir, user.uid, user.gid);
	try {
		const initdb = await runProcess(
			path.join(binDir, 'initdb'),
			['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'],
			{ cwd: os.tmpdir(), env: process.env, timeoutMs: 120_000, ...user },
		);
		if (initdb.code !== 0) throw new Error(`initdb failed:\n${initdb.stdout}\n${initdb.stderr}`);
	} catch (error) {
		removeData();
		throw error;
	}
	const port = await freePort();
	const service = ChildService.spawn(
		'postgres',
		path.join(binDir, 'postgres'),
		[
			...['-D', dataDir, '-p', String(port), '-k', dataDir],
			...['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'full_page_writes=off'],
		],
		{ logFile: path.join(logDir, 'postgres.log'), cwd: os.tmpdir(), user },
	);
	// SIGINT is Postgres' "fast" shutdown: roll back open transactions, exit.
	const stop = async () => {
		await service.stop('SIGINT');
		removeData();
	};
	try {
		const isReady = path.join(binDir, 'pg_isready');
		await service.waitUntil(
			async () =>
				(
					await runProcess(isReady, ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres'], {
						timeoutMs: 10_000,
					})
				).code === 0,
			60_000,
		);
	} catch (error) {
		await stop();
		throw error;
	}
	return { port, user: 'postgres', database: 'postgres', service, stop };
}

export interface Redis {
	port: number;
	service: ChildService;
	stop(): Promise<void>;
}

/** Answers PING with +PONG once Redis accepts commands. */
function redisPing(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		const done = (ok: boolean) => {
			socket.destroy();
			resolve(ok);
		};
		socket.setTimeout(2_000, () => done(false));
		socket.on('error', () => done(false));
		socket.on('connect', () => socket.write('PING\r\n'));
		socket.on('data', (data) => done(data.toString().startsWith('+PONG')));
	});
}

/** In-memory Redis: no snapshots, no append-only file, nothing written to disk. */
export async function startRedis(logDir: string): Promise<Redis> {
	const binary = await ensureBinary(() => onPath('redis-server'), 'redis-server');
	const port = await freePort();
	const service = ChildService.spawn(
		'redis',
		binary,
		[
			...['--port', String(port), '--bind', '127.0.0.1'],
			...['--save', '', '--appendonly', 'no', '--dir', logDir],
		],
		{ logFile: path.join(logDir, 'redis.log'), cwd: logDir },
	);
	const stop = () => service.stop('SIGTERM');
	try {
		await service.waitUntil(() => redisPing(port), 30_000);
	} catch (error) {
		await stop();
		throw error;
	}
	return { port, service, stop };
}
