/**
 * The package's main entry (`agent-server-contract`): the typed client and the contract's
 * types. It loads nothing from the disk, so a client bundle does not pull in the server.
 */
export * from './client';
export * from './contract/types';
