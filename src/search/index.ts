export * from './event-index';
export * from './search';
export * from './timestamps';
export * from './uuid';
export * from './kinds';
export * from './message-text';
export { resized } from './typed-arrays';
export { DENSE_POSITIONS, PositionTable } from './position-table';
export * from './cross-search';
