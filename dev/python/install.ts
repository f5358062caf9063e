/**
 * `npm run python-tools`: builds every pinned Python environment the tests need, before jest
 * starts, so no test waits on pip within its timeout. A toolset that cannot be installed is
 * reported in one line and the run goes on: the tests that need it fail with the same line.
 */
import { pythonEnvironment } from './environment';
import { PYTHON_TOOLSETS } from './toolsets';

async function main(): Promise<void> {
  for (const toolset of PYTHON_TOOLSETS) {
    try {
      const environment = await pythonEnvironment(toolset);
      process.stdout.write(`${toolset.name}: ready (${environment.directory})\n`);
    } catch (error) {
      process.stdout.write(`${(error as Error).message}\n`);
    }
  }
}

void main();
