/** Real-n8n end-to-end harness: see README.md in this folder. */
export { N8N_MAJOR, N8N_VERSION, NODE24_VERSION, REPO_DIR } from './n8n-install';
export { createN8nSandbox, type N8nSandbox, type SandboxOptions } from './sandbox';
export { packAndInstall, type InstalledPackage } from './pack';
export {
	isFinished,
	readDatabaseText,
	readStoredExecutions,
	storedOutput,
	type StoredExecution,
} from './db';
export {
	N8nServer,
	OWNER,
	startN8nServer,
	toWebhookWorkflow,
	type PublicationStatus,
	type ServerRunResult,
} from './server';
export {
	nodeOutput,
	type CredentialJson,
	type NodeExecutionItem,
	type WorkflowJson,
} from './types';
export { startN8nQueue, type N8nQueue } from './queue';
