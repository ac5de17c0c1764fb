/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

// n8n-core keeps binary data and instance settings under the user folder: a fresh one per
// test file keeps runs independent and leaves nothing in the developer's home, nor in /tmp.
const userFolder = mkdtempSync(join(tmpdir(), 'lca-engine-'));
process.env.N8N_USER_FOLDER = userFolder;
afterAll(() => rmSync(userFolder, { recursive: true, force: true }));
// n8n-core logs a workflow that stops on an error; the tests check the error themselves, and
// a passing `npm test` prints nothing but jest's own output.
process.env.N8N_LOG_LEVEL = 'silent';

// The fuzz suites draw from one fixed seed, so `npm test` and CI give the same verdict on every
// run. FUZZ_SEED=<number> replays a failure's seed; FUZZ_SEED=random explores new inputs.
const fuzzSeed = process.env.FUZZ_SEED ?? '20261126';
if (fuzzSeed !== 'random') fc.configureGlobal({ seed: Number(fuzzSeed) });
