#!/usr/bin/env node
'use strict';
/**
 * Reads what n8n stored in its SQLite database, with the cached Node 24 binary (the sqlite3
 * addon in the cache is compiled for it; db.ts runs it). One JSON document on stdout:
 *
 *   <node24> db-query.js <database.sqlite> dump                   every row of every table
 *   <node24> db-query.js <database.sqlite> executions [workflowId] newest first, data decoded
 *
 * Module paths come from LCA_N8N_MODULES (the cache's n8n/node_modules).
 */
const path = require('path');

const modules = process.env.LCA_N8N_MODULES;
const sqlite3 = require(path.join(modules, 'sqlite3'));
const flatted = require(path.join(modules, 'flatted'));

function all(db, sql, params = []) {
	return new Promise((resolve, reject) =>
		db.all(sql, params, (err, rows) => (err ? reject(err) : resolve(rows))),
	);
}

async function dump(db) {
	const out = {};
	for (const { name } of await all(db, "SELECT name FROM sqlite_master WHERE type = 'table'")) {
		// Buffers (blobs) become text too, so a secret stored in a blob column is still found.
		const rows = await all(db, `SELECT * FROM "${name.replace(/"/g, '""')}"`);
		out[name] = rows.map((row) =>
			Object.fromEntries(
				Object.entries(row).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('utf8') : v]),
			),
		);
	}
	return out;
}

async function executions(db, workflowId) {
	const rows = await all(
		db,
		`SELECT e.id, e."workflowId", e.status, e.mode,
			d.data AS rawData, d."workflowData" AS rawWorkflowData
		FROM execution_entity e LEFT JOIN execution_data d ON d."executionId" = e.id
		${workflowId ? 'WHERE e."workflowId" = ?' : ''} ORDER BY CAST(e.id AS INTEGER) DESC`,
		workflowId ? [workflowId] : [],
	);
	// n8n stores run data serialised with `flatted` (it allows circular references).
	return rows.map((row) => ({ ...row, data: row.rawData ? flatted.parse(row.rawData) : null }));
}

async function main() {
	const [file, mode, workflowId] = process.argv.slice(2);
	const db = await new Promise((resolve, reject) => {
		const handle = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (err) =>
			err ? reject(err) : resolve(handle),
		);
	});
	try {
		// n8n may be writing at the same time; wait for its locks instead of failing.
		db.configure('busyTimeout', 10000);
		const result = mode === 'dump' ? await dump(db) : await executions(db, workflowId);
		process.stdout.write(JSON.stringify(result));
	} finally {
		db.close();
	}
}

main().catch((err) => {
	process.stderr.write(`db-query: ${err.stack || String(err)}\n`);
	process.exit(2);
});
