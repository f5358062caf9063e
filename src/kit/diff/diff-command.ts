/**
 * `agent-server-contract diff OLD NEW`: lists each change between two versions of the
 * contract (YAML or JSON files) as breaking for clients, for servers, or compatible.
 * Exit 0 nothing breaking, 1 something breaking, 2 a file could not be read.
 */
import { readContractFile } from '../contract-source';
import { diffContracts, isBreaking, renderChanges } from './contract-diff';
import type { CommandIo } from '../proxy/proxy-command';

export const DIFF_USAGE = `Usage: npm run contract -- diff OLD NEW
       agent-server-contract diff OLD NEW

Compares two versions of the contract (openapi.yaml or its JSON form) and lists each change
as BREAKING for clients, BREAKING for servers, or compatible, with where it is.
Exit status: 0 nothing breaking; 1 something breaking; 2 a file could not be read.
`;

export function runDiffCommand(args: string[], io: CommandIo): number {
  if (args.includes('--help') || args.includes('-h')) {
    io.out(DIFF_USAGE);
    return 0;
  }
  if (args.length !== 2) {
    io.err(`contract diff: give exactly two files, the old contract and the new one, e.g. diff old-openapi.yaml openapi.yaml\n\n${DIFF_USAGE}`);
    return 2;
  }
  const documents = args.map(readContract);
  for (const document of documents) {
    if (!document.ok) {
      io.err(`contract diff: ${document.message}\n`);
      return 2;
    }
  }
  const [before, after] = documents.map((document) => (document as { ok: true; value: Record<string, unknown> }).value) as [
    Record<string, unknown>,
    Record<string, unknown>,
  ];
  const changes = diffContracts(before, after);
  io.out(renderChanges(changes));
  return isBreaking(changes) ? 1 : 0;
}

function readContract(file: string): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  const read = readContractFile(file);
  return read.ok ? { ok: true, value: read.document } : read;
}
