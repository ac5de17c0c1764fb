import type { IExecuteFunctions, ILoadOptionsFunctions, IPollFunctions } from 'n8n-workflow';

/**
 * The n8n contexts that run the node: the action node (item by item) and the polling trigger.
 * They read the node's parameters and store files in n8n's binary data store.
 */
export type RunContext = IExecuteFunctions | IPollFunctions;

/**
 * The contexts that call the API: those that run the node, and the editor loading a list
 * (the Call field's "From List"). Requests use only what all of them have: the node, its
 * credential and n8n's HTTP helpers.
 */
export type RequestContext = RunContext | ILoadOptionsFunctions;
