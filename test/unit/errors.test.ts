import type { INode } from 'n8n-workflow';

import { isStale, statusOf, toNodeError } from '../../nodes/shared/errors';

/**
 * Real n8n (1.x and 2.x) may load its own copy of n8n-workflow, so an error its helpers throw is
 * not an instance of the classes this package imports. The error module recognises node errors
 * by shape; a second copy of n8n-workflow, loaded in an isolated module registry, stands for n8n's.
 */
const node: INode = {
	id: 'node-id',
	name: 'Lead & Call Access',
	type: 'n8n-nodes-lead-call-access.leadCallAccess',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

function otherCopy(): typeof import('n8n-workflow') {
	let copy: typeof import('n8n-workflow') | undefined;
	jest.isolateModules(() => {
		copy = jest.requireActual<typeof import('n8n-workflow')>('n8n-workflow');
	});
	return copy!;
}

describe('an error from another copy of n8n-workflow', () => {
	const { NodeApiError, NodeOperationError } = otherCopy();

	test('the copy really is another one (else this test proves nothing)', () => {
		expect(NodeApiError).not.toBe(jest.requireActual('n8n-workflow').NodeApiError);
	});

	test('is passed on as it is, named after its item', () => {
		const error = new NodeOperationError(node, 'The credential could not be read', {
			description: 'why',
		});
		const nodeError = toNodeError(node, error, 3);
		expect(nodeError).toBe(error);
		expect(nodeError.context.itemIndex).toBe(3);
	});

	test('keeps the item it already names', () => {
		const error = new NodeOperationError(node, 'x', { itemIndex: 1 });
		expect(toNodeError(node, error, 3).context.itemIndex).toBe(1);
	});

	test.each([
		['400', true],
		['404', true],
		['410', true],
		['422', false],
		['500', false],
	])('with status %s: its status is read, and it is stale: %s', (httpCode, stale) => {
		const error = new NodeApiError(node, { status: Number(httpCode) }, { httpCode });
		expect(statusOf(error)).toBe(httpCode);
		expect(isStale(error)).toBe(stale);
	});
});

test('an error that is no node error becomes one, keeping its message and advice', () => {
	const listProblem = Object.assign(new Error('The calls list has no ids'), {
		description: 'Set Options › List Order.',
	});
	const nodeError = toNodeError(node, listProblem, 2);
	expect(nodeError.message).toBe('The calls list has no ids');
	expect(nodeError.description).toBe('Set Options › List Order.');
	expect(nodeError.context.itemIndex).toBe(2);
	expect(statusOf(nodeError)).toBeUndefined();
	expect(isStale(new Error('404'))).toBe(false);
});
