/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

/**
 * For a bench that runs the nodes' sources in-process (the engine harness), as test/setup.ts
 * does for jest: n8n-core keeps its instance settings under a user folder of the bench's own,
 * removed at exit, not in the developer's home.
 */
const userFolder = mkdtempSync(join(tmpdir(), 'lca-bench-'));
process.env.N8N_USER_FOLDER = userFolder;
process.env.N8N_LOG_LEVEL = 'silent';
process.on('exit', () => rmSync(userFolder, { recursive: true, force: true }));

/**
 * Under ts-node, `require('…/LeadCallAccess.node')` finds `LeadCallAccess.node.json` (n8n's codex
 * file) before `LeadCallAccess.node.ts`, since Node tries `.json` before extensions registered
 * later. A bench that loads the nodes' sources (the engine harness) imports this first: `.json`
 * moves after `.ts`. Jest resolves TypeScript first already.
 */
const extensions: Partial<NodeJS.RequireExtensions> = require.extensions;
const json = extensions['.json'];
delete extensions['.json'];
extensions['.json'] = json;
