/**
 * `tsc --noEmit -p tsconfig.json` for copies of one project, run in this process through the
 * TypeScript compiler API rather than a tsc process per copy. The copies link the same
 * node_modules, so their declaration files (Node's and the libraries' types, TypeScript's own
 * lib files: most of what tsc parses) resolve to the same paths outside the copies; each is
 * parsed and bound once and its tree shared by every later program, as TypeScript's language
 * service shares trees between projects. A copy then costs the parse of its own sources and
 * the check. The errors are tsc's: the same options, files and diagnostics, file names relative
 * to the copy.
 */
import path from 'node:path';
import ts from 'typescript';

export interface Diagnostic {
  /** Relative to the project, with `/`; empty for an error of no file (options, global types). */
  file: string;
  /** 1-based, as tsc prints it; 0 with no file. */
  line: number;
  /** `TS` and the number, as tsc prints it. */
  code: string;
  message: string;
}

/** Parsed and bound trees of the files outside the copies, by the file's path, language version and module format; reused only for the same text. */
const sharedTrees = new Map<string, ts.SourceFile>();

/** A compiler host that reads as tsc's does, sharing the trees of files outside `project`. */
function sharingHost(options: ts.CompilerOptions, project: string): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const inProject = `${path.resolve(project)}${path.sep}`;
  host.getSourceFile = (fileName, languageVersionOrOptions, onError) => {
    const text = host.readFile(fileName);
    if (text === undefined) {
      onError?.(`Cannot read file '${fileName}'.`);
      return undefined;
    }
    if (path.resolve(fileName).startsWith(inProject)) return ts.createSourceFile(fileName, text, languageVersionOrOptions);
    // What shapes the tree besides the text: the language version and the module format.
    const { languageVersion, impliedNodeFormat } =
      typeof languageVersionOrOptions === 'object'
        ? languageVersionOrOptions
        : { languageVersion: languageVersionOrOptions, impliedNodeFormat: undefined };
    const key = `${languageVersion}\0${impliedNodeFormat}\0${fileName}`;
    const known = sharedTrees.get(key);
    if (known?.text === text) return known;
    const tree = ts.createSourceFile(fileName, text, languageVersionOrOptions);
    sharedTrees.set(key, tree);
    return tree;
  };
  return host;
}

/** The program `tsc -p tsconfig.json` builds in `project`. */
export function projectProgram(project: string): ts.Program {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(project, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error(`no tsconfig.json in ${project}`);
  return ts.createProgram({
    rootNames: config.fileNames,
    options: config.options,
    projectReferences: config.projectReferences,
    host: sharingHost(config.options, project),
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(config),
  });
}

function described(project: string, diagnostic: ts.Diagnostic): Diagnostic {
  const { file, start } = diagnostic;
  return {
    file: file ? path.relative(project, file.fileName).split(path.sep).join('/') : '',
    line: file && start !== undefined ? file.getLineAndCharacterOfPosition(start).line + 1 : 0,
    code: `TS${diagnostic.code}`,
    message: ts.flattenDiagnosticMessageText(diagnostic.messageText, ' '),
  };
}

/** Checks run one at a time: they share this thread anyway, and one program's checker at a time holds its tables. */
let lastCheck: Promise<unknown> = Promise.resolve();

/**
 * tsc's errors for `program` (built by projectProgram(project)): those of the configuration, the
 * options and the global types, then each file's syntax errors and, when there are none, as tsc
 * does, the type errors. With `files` (relative to the project), only those files' errors, and
 * the ones of no file. The event loop runs between files, so the tests beside keep going.
 */
export function projectDiagnostics(program: ts.Program, project: string, files?: readonly string[]): Promise<Diagnostic[]> {
  const check = lastCheck.then(async () => {
    const wanted = files && new Set(files.map((file) => path.resolve(project, file)));
    const sources = program.getSourceFiles().filter((source) => !wanted || wanted.has(path.resolve(source.fileName)));
    const found: ts.Diagnostic[] = [...program.getConfigFileParsingDiagnostics(), ...program.getOptionsDiagnostics()];
    const syntactic = sources.flatMap((source) => program.getSyntacticDiagnostics(source));
    found.push(...syntactic);
    if (syntactic.length === 0) {
      found.push(...program.getGlobalDiagnostics());
      for (const source of sources) {
        found.push(...program.getSemanticDiagnostics(source));
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    return found.map((diagnostic) => described(project, diagnostic));
  });
  lastCheck = check.catch(() => undefined);
  return check;
}
