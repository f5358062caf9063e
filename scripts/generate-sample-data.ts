/**
 * Regenerates sample-data/ (conversations in the reference layout, and their manifests) from
 * the fixed seeds in src/fixture/sample-data.ts. Running it twice gives identical files;
 * test/fixture/sample-data.test.ts fails if the committed files drift from it.
 */
import path from 'node:path';
import { SAMPLE_CONVERSATIONS, writeSampleData } from '../src/fixture';

const sampleDataDirectory = path.resolve(__dirname, '..', 'sample-data');
const directories = writeSampleData(sampleDataDirectory);
directories.forEach((directory, index) => {
  const sample = SAMPLE_CONVERSATIONS[index];
  process.stdout.write(`${path.relative(process.cwd(), directory)}: ${sample?.events ?? '?'} events, ${sample?.description ?? ''}\n`);
});
