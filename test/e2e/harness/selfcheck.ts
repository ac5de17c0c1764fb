/**
 * Proves the harness end to end with a throwaway community package built in a temp dir (not
 * this repo's node), so it works before/independently of our own build:
 *   npx ts-node --transpile-only test/e2e/harness/selfcheck.ts
 * Prints measured timings as JSON on stdout. Exit 0 = everything worked.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';

import {
	createN8nSandbox,
	ensureN8n,
	nodeOutput,
	packAndInstall,
	readDatabaseText,
	readStoredExecutions,
	runWorkflow,
	startN8nServer,
	type CredentialJson,
	type WorkflowJson,
} from './index';

const SECRET = 'mini-secret-7f3a9c1e55';
const PKG = 'n8n-nodes-lca-mini';

const NODE_JS = `'use strict';
class MiniEcho {
	constructor() {
		this.description = {
			displayName: 'Mini Echo', name: 'miniEcho', group: ['transform'], version: 1,
			description: 'Calls the echo server', defaults: { name: 'Mini Echo' },
			inputs: ['main'], outputs: ['main'], usableAsTool: true,
			credentials: [{ name: 'miniEchoApi', required: true }],
			properties: [{ displayName: 'Message', name: 'message', type: 'string', default: 'hi' }],
		};
	}
	async execute() {
		const creds = await this.getCredentials('miniEchoApi');
		const out = [];
		for (let i = 0; i < this.getInputData().length; i++) {
			const message = this.getNodeParameter('message', i);
			const server = await this.helpers.httpRequestWithAuthentication.call(this, 'miniEchoApi', {
				method: 'GET', url: creds.baseUrl + '/echo', qs: { m: message }, json: true,
			});
			out.push({ json: { message, server, pid: process.pid }, pairedItem: { item: i } });
		}
		return [out];
	}
}
exports.MiniEcho = MiniEcho;
`;

const CREDENTIAL_JS = `'use strict';
class MiniEchoApi {
	constructor() {
		this.name = 'miniEchoApi';
		this.displayName = 'Mini Echo API';
		this.properties = [
			{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: '' },
			{ displayName: 'API Key', name: 'apiKey', type: 'string', typeOptions: { password: true }, default: '' },
		];
		this.authenticate = { type: 'generic', properties: { headers: { 'X-Api-Key': '={{$credentials.apiKey}}' } } };
		this.test = { request: { baseURL: '={{$credentials.baseUrl}}', url: '/ping' } };
	}
}
exports.MiniEchoApi = MiniEchoApi;
`;

function writeMiniPackage(): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lca-mini-pkg-'));
	const write = (file: string, text: string) => {
		fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
		fs.writeFileSync(path.join(dir, file), text);
	};
	write(
		'package.json',
		JSON.stringify({
			name: PKG,
			version: '0.0.1',
			license: 'MIT',
			keywords: ['n8n-community-node-package'],
			files: ['dist'],
			n8n: {
				n8nNodesApiVersion: 1,
				strict: true,
				nodes: ['dist/nodes/MiniEcho/MiniEcho.node.js'],
				credentials: ['dist/credentials/MiniEchoApi.credentials.js'],
			},
			peerDependencies: { 'n8n-workflow': '*' },
		}),
	);
	write('dist/nodes/MiniEcho/MiniEcho.node.js', NODE_JS);
	write('dist/credentials/MiniEchoApi.credentials.js', CREDENTIAL_JS);
	return dir;
}

/** Answers 401 unless X-Api-Key is right; never echoes the key back. */
function startEchoServer(): Promise<{ url: string; close: () => void; seenKeys: Set<string> }> {
	const seenKeys = new Set<string>();
	const server = http.createServer((req, res) => {
		const key = String(req.headers['x-api-key'] ?? '');
		seenKeys.add(key === SECRET ? 'right' : 'wrong');
		res.setHeader('content-type', 'application/json');
		res.statusCode = key === SECRET ? 200 : 401;
		res.end(JSON.stringify(key === SECRET ? { url: req.url, keyOk: true } : { error: 'bad key' }));
	});
	return new Promise((resolve) =>
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as { port: number };
			resolve({ url: `http://127.0.0.1:${port}`, close: () => server.close(), seenKeys });
		}),
	);
}

function workflow(name: string, credentialId: string): WorkflowJson {
	return {
		name,
		nodes: [
			{
				id: 'n1',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'n2',
				name: 'Echo',
				type: `${PKG}.miniEcho`,
				typeVersion: 1,
				position: [220, 0],
				parameters: { message: 'hello' },
				credentials: { miniEchoApi: { id: credentialId, name: credentialId } },
			},
		],
		connections: { Start: { main: [[{ node: 'Echo', type: 'main', index: 0 }]] } },
		settings: {},
	};
}

async function timed<T>(
	label: string,
	timings: Record<string, number>,
	fn: () => Promise<T>,
): Promise<T> {
	const t = Date.now();
	try {
		return await fn();
	} finally {
		timings[label] = Date.now() - t;
		process.stderr.write(`[selfcheck] ${label}: ${timings[label]} ms\n`);
	}
}

async function main() {
	const timings: Record<string, number> = {};
	await timed('ensureN8n', timings, () => ensureN8n());
	const echo = await startEchoServer();
	const sandbox = await createN8nSandbox();
	const good: CredentialJson = {
		id: 'miniCredGood0001',
		name: 'good',
		type: 'miniEchoApi',
		data: { baseUrl: echo.url, apiKey: SECRET },
	};
	const bad: CredentialJson = {
		id: 'miniCredBad00001',
		name: 'bad',
		type: 'miniEchoApi',
		data: { baseUrl: echo.url, apiKey: 'nope' },
	};
	let server: Awaited<ReturnType<typeof startN8nServer>> | undefined;
	try {
		const miniDir = writeMiniPackage();
		const installed = await timed('packAndInstall', timings, () =>
			packAndInstall(miniDir, sandbox.userFolder),
		).finally(() => fs.rmSync(miniDir, { recursive: true, force: true }));
		assert.ok(
			!fs.existsSync(path.join(installed.packageDir, 'node_modules', 'n8n-workflow')),
			'peer dep must not be installed',
		);

		// CLI mode: first call pays the DB migrations.
		const first = await timed(
			'cli.runWorkflow (first: migrations + import + execute)',
			timings,
			() => runWorkflow(sandbox, workflow('cli good', good.id), [good]),
		);
		assert.ok(first.ok, `execute failed:\n${first.stdout}\n${first.stderr}`);
		assert.deepStrictEqual(nodeOutput(first.run!, 'Echo')[0].json.server, {
			url: '/echo?m=hello',
			keyOk: true,
		});

		const again = await timed('cli.execute (warm, trivial workflow)', timings, async () => {
			const { executeWorkflow } = await import('./cli');
			return executeWorkflow(sandbox, first.workflowId);
		});
		assert.ok(again.ok);

		const failed = await runWorkflow(sandbox, workflow('cli bad', bad.id), [bad]);
		assert.ok(!failed.ok && failed.code !== 0, 'a 401 must fail the execution');
		assert.ok(failed.run, 'failure output must still be parsed');
		assert.match(
			String(failed.run!.data.resultData.error?.message),
			/401|Authorization|credentials/i,
		);

		// Long-lived mode.
		server = await timed('server.start (n8n start + owner setup)', timings, () =>
			startN8nServer(sandbox),
		);
		const srvFirst = await timed('server.runWorkflow (first)', timings, () =>
			server!.runWorkflow(workflow('srv good', good.id), [good]),
		);
		assert.strictEqual(srvFirst.httpStatus, 200);
		assert.deepStrictEqual((srvFirst.response as Array<{ server: unknown }>)[0].server, {
			url: '/echo?m=hello',
			keyOk: true,
		});
		assert.strictEqual(nodeOutput(srvFirst.run, 'Echo').length, 1);

		const pair = await timed('server.runWorkflow x2 concurrently', timings, () =>
			Promise.all(
				[1, 2].map((i) => server!.runWorkflow(workflow(`srv pair ${i}`, good.id), [good])),
			),
		);
		const pids = pair.map((r) => nodeOutput(r.run, 'Echo')[0].json.pid);
		assert.strictEqual(pids[0], pids[1], 'both executions must run in the same n8n process');

		const ten = await timed('server.runWorkflow x10 sequential', timings, async () => {
			for (let i = 0; i < 10; i++)
				await server!.runWorkflow(workflow(`srv seq ${i}`, good.id), [good]);
		});
		void ten;

		const srvBad = await server.runWorkflow(workflow('srv bad', bad.id), [bad]);
		assert.strictEqual(srvBad.run.status, 'error');
		assert.notStrictEqual(srvBad.httpStatus, 200);

		const okTest = await timed('server.testCredential', timings, () =>
			server!.testCredential(good),
		);
		assert.strictEqual(okTest.status, 'OK', JSON.stringify(okTest));
		const badTest = await server.testCredential(bad);
		assert.strictEqual(badTest.status, 'Error');
		process.stderr.write(`[selfcheck] bad credential test message: ${badTest.message}\n`);

		await timed('server.stop', timings, () => server!.stop());
		server = undefined;

		const stored = await readStoredExecutions(sandbox);
		const text = await timed('readDatabaseText (all tables)', timings, () =>
			readDatabaseText(sandbox),
		);
		assert.ok(stored.length >= 17, `expected all executions stored, got ${stored.length}`);
		assert.ok(!text.includes(SECRET), 'the API key must not appear in the database');
		assert.ok(text.includes('keyOk'), 'sanity: execution data is in the dump');
		assert.deepStrictEqual([...echo.seenKeys].sort(), ['right', 'wrong']);

		process.stdout.write(
			JSON.stringify({ ok: true, executionsStored: stored.length, timingsMs: timings }, null, 2) +
				'\n',
		);
	} finally {
		await server?.stop();
		echo.close();
		sandbox.cleanup();
	}
}

main().catch((err) => {
	process.stderr.write(`[selfcheck] FAILED: ${err instanceof Error ? err.stack : String(err)}\n`);
	process.exit(1);
});
