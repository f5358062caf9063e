export * from './search';
export * from './timestamps';
export * from './uuid';
export * from './kinds';
export * from './message-text';
export * from './cross-search';
