export * from './types';
export * from './document';
