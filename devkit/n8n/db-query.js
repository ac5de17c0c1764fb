#!/usr/bin/env node
'use strict';
/**
 * Reads what n8n stored in its SQLite database. Run it with the cached Node 24 binary, because
 * the sqlite3 addon in the cache is compiled for it (the harness does this for you):
 *
 *   <node24> db-query.js <database.sqlite> dump [table...]     every row of every (or the named)
 *                                                              table as text, for secret scans
 *   <node24> db-query.js <database.sqlite> executions [workflowId]
 *                                                              stored executions, newest first,
 *                                                              with `data` decoded from flatted
 *
 * Output is one JSON document on stdout. Module paths come from LCA_N8N_MODULES (the cache's
 * n8n/node_modules), so nothing has to be installed in the repo.
 */
const path = require('path');

const modules = process.env.LCA_N8N_MODULES;
if (!modules) fail('LCA_N8N_MODULES is not set (path to the cached n8n/node_modules)');
const sqlite3 = require(path.join(modules, 'sqlite3'));
const flatted = require(path.join(modules, 'flatted'));

function fail(message) {
	process.stderr.write(`db-query: ${message}\n`);
	process.exit(2);
}

function all(db, sql, params = []) {
	return new Promise((resolve, reject) =>
		db.all(sql, params, (err, rows) => (err ? reject(err) : resolve(rows))),
	);
}

async function dump(db, only) {
	const tables = (await all(db, "SELECT name FROM sqlite_master WHERE type = 'table'"))
		.map((row) => row.name)
		.filter((name) => only.length === 0 || only.includes(name));
	const out = {};
	for (const table of tables) {
		// Buffers (blobs) become text too, so a secret stored in a blob column is still found.
		const rows = await all(db, `SELECT * FROM "${table.replace(/"/g, '""')}"`);
		out[table] = rows.map((row) =>
			Object.fromEntries(
				Object.entries(row).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('utf8') : v]),
			),
		);
	}
	return out;
}

async function executions(db, workflowId) {
	const where = workflowId ? 'WHERE e."workflowId" = ?' : '';
	const rows = await all(
		db,
		`SELECT e.id, e."workflowId", e.status, e.mode, e.finished, e."startedAt", e."stoppedAt",
			d.data AS rawData, d."workflowData" AS rawWorkflowData
		FROM execution_entity e LEFT JOIN execution_data d ON d."executionId" = e.id
		${where} ORDER BY CAST(e.id AS INTEGER) DESC`,
		workflowId ? [workflowId] : [],
	);
	// n8n stores run data serialised with `flatted` (it allows circular references).
	return rows.map((row) => ({ ...row, data: row.rawData ? flatted.parse(row.rawData) : null }));
}

async function main() {
	const [file, mode, ...rest] = process.argv.slice(2);
	if (!file || !['dump', 'executions'].includes(mode)) {
		fail('usage: db-query.js <database.sqlite> dump [table...] | executions [workflowId]');
	}
	const db = await new Promise((resolve, reject) => {
		const handle = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (err) =>
			err ? reject(err) : resolve(handle),
		);
	});
	try {
		// n8n may be writing at the same time; wait for its locks instead of failing.
		db.configure('busyTimeout', 10000);
		const result = mode === 'dump' ? await dump(db, rest) : await executions(db, rest[0]);
		process.stdout.write(JSON.stringify(result));
	} finally {
		db.close();
	}
}

main().catch((err) => fail(err.stack || String(err)));
