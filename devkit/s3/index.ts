/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * A local S3-compatible server (s3rver, a devDependency) on loopback, started by the test that
 * needs it and stopped at its end: n8n's own S3 node uploads to it for real, through the
 * endpoint of an S3 credential. Objects are read back from its folder.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import S3rver from 's3rver';

/** s3rver's default key pair: it checks each request's signature against it. */
const ACCESS_KEY = 'S3RVER';
const OBJECT_SUFFIX = '._S3rver_object';

export interface LocalS3 {
	endpoint: string;
	bucket: string;
	/** The data of an `s3` credential pointing at this server. */
	credentialData: Record<string, unknown>;
	/** Every object stored in the bucket, by key. */
	objects(): Map<string, Buffer>;
	/** Stops answering, as an S3 down for a while; `resume` answers again on the same address. */
	pause(): Promise<void>;
	resume(): Promise<void>;
	stop(): Promise<void>;
}

export async function startLocalS3(bucket: string): Promise<LocalS3> {
	const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'lca-s3-'));
	const configureBuckets = [{ name: bucket, configs: [] }];
	const options = { address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets };
	let server = new S3rver(options);
	const { port } = await server.run();
	const endpoint = `http://127.0.0.1:${port}`;
	const root = path.join(directory, bucket);
	const objects = () => {
		const files = fs.existsSync(root)
			? fs.readdirSync(root, { recursive: true, encoding: 'utf8' })
			: [];
		const keys = files.filter((file) => file.endsWith(OBJECT_SUFFIX));
		return new Map(
			keys.map((file) => [
				file.slice(0, -OBJECT_SUFFIX.length).split(path.sep).join('/'),
				fs.readFileSync(path.join(root, file)),
			]),
		);
	};
	return {
		endpoint,
		bucket,
		credentialData: {
			endpoint,
			region: 'us-east-1',
			accessKeyId: ACCESS_KEY,
			secretAccessKey: ACCESS_KEY,
			forcePathStyle: true,
		},
		objects,
		pause: async () => await server.close(),
		resume: async () => {
			server = new S3rver({ ...options, port });
			await server.run();
		},
		stop: async () => {
			await server.close();
			fs.rmSync(directory, { recursive: true, force: true });
		},
	};
}
