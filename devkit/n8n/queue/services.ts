/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The two services n8n's queue mode needs, Postgres and Redis, each a child process of the
 * caller on a free 127.0.0.1 port with its data in a temp folder. Debian's packages are installed
 * with apt-get when a binary is missing (the test machines are Debian and run as root).
 */
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';

import { aptInstall, ChildService, freePort, runProcess, type SystemUser } from '../process';

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

/** A service on a free 127.0.0.1 port; stop() also removes its data. */
export interface Service {
	port: number;
	stop(): Promise<void>;
}

/** Waits until the service is ready; if it does not get there, stops it before throwing. */
async function whenReady(
	port: number,
	service: ChildService,
	ready: () => Promise<boolean>,
	stop: () => Promise<void>,
): Promise<Service> {
	try {
		await service.waitUntil(ready, 60_000);
	} catch (error) {
		await stop();
		throw error;
	}
	return { port, stop };
}

/**
 * A throw-away cluster: initdb into a temp folder, trust authentication on 127.0.0.1 only,
 * fsync off (nothing here needs to survive a crash). Postgres refuses to run as root, so as
 * root it runs as the `postgres` user the Debian package creates. Its user and database are
 * both `postgres`.
 */
export async function startPostgres(logDir: string): Promise<Service> {
	const binDir = await ensureBinary(postgresBinDir, 'postgresql');
	const user = process.getuid?.() === 0 ? systemUser('postgres') : undefined;
	if (process.getuid?.() === 0 && !user) throw new Error('no postgres system user');
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lca-pg-'));
	const removeData = () => fs.rmSync(dataDir, { recursive: true, force: true });
	if (user) fs.chownSync(dataDir, user.uid, user.gid);
	const initdb = await runProcess(
		path.join(binDir, 'initdb'),
		['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'],
		{ cwd: os.tmpdir(), env: process.env, timeoutMs: 120_000, ...user },
	).catch((error: Error) => ({ code: -1, stdout: '', stderr: error.message }));
	if (initdb.code !== 0) {
		removeData();
		throw new Error(`initdb failed:\n${initdb.stdout}\n${initdb.stderr}`);
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
	const isReady = ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres'];
	const ready = async () =>
		(await runProcess(path.join(binDir, 'pg_isready'), isReady, { timeoutMs: 10_000 })).code === 0;
	// SIGINT is Postgres' "fast" shutdown: roll back open transactions, exit.
	return await whenReady(port, service, ready, async () => {
		await service.stop('SIGINT');
		removeData();
	});
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
export async function startRedis(logDir: string): Promise<Service> {
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
	return await whenReady(
		port,
		service,
		() => redisPing(port),
		() => service.stop('SIGTERM'),
	);
}
