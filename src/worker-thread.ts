/**
 * Starts a worker thread on one of this project's modules, whether it runs as TypeScript
 * or as compiled JavaScript. The built server (dist/) starts its workers on compiled
 * JavaScript and needs nothing more. The tests run under ts-jest and the developer tools
 * under tsx, and neither makes a new thread understand TypeScript: ts-jest compiles only inside Jest's
 * module registry, and a worker started on a `.ts` path under Node 20 fails with "Unknown
 * file extension". So a TypeScript module is started from two lines of JavaScript that
 * register tsx's CommonJS hook (it compiles in the thread that requires; tsx is a
 * development dependency, never loaded by the built server) and then require the module.
 */
import { type Transferable, Worker } from 'node:worker_threads';

/**
 * `modulePath` is absolute; the worker inherits this thread's node flags (--cpu-prof
 * included) and receives `workerData`, with what `transferList` names (a MessagePort) moved to it.
 */
export function startModuleWorker(modulePath: string, workerData?: unknown, transferList: Transferable[] = []): Worker {
  if (!modulePath.endsWith('.ts')) return new Worker(modulePath, { workerData, transferList });
  const source = [`require(${JSON.stringify(require.resolve('tsx/cjs/api'))}).register();`, `require(${JSON.stringify(modulePath)});`].join('\n');
  return new Worker(source, { eval: true, workerData, transferList });
}
