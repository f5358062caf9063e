export * from './types';
export * from './document';
export * from './references';
export * from './operation-table';
