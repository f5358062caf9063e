export * from './event-index';
export * from './search';
export * from './timestamps';
export * from './uuid';
export * from './kinds';
export * from './message-text';
export { resized } from './typed-arrays';
export * from './cross-search';
