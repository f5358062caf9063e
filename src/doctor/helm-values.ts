import type { StorageClassListing } from './cluster-tools';
import { readPath } from './data-path';
import { fail, pass, warn, type Check } from './report';
import type { ValuesDocument } from './values-file';

/**
 * The YAML paths of each setting in the enterprise chart (docs/reference-behaviour.md, "Deployments"), the chart's own
 * path first. A values file may set the same key at another level; the first path that holds a value
 * is used and named in the finding, and differing values at two paths are reported.
 */
export const SETTING_PATHS = {
  urlPattern: ['env.RUNTIME_URL_PATTERN', 'runtime-api.env.RUNTIME_URL_PATTERN'],
  baseDomain: ['runtime-api.env.RUNTIME_BASE_URL', 'env.RUNTIME_BASE_URL'],
  separator: ['runtime-api.env.RUNTIME_URL_SEPARATOR', 'env.RUNTIME_URL_SEPARATOR'],
  disableSsl: ['runtime-api.env.RUNTIME_DISABLE_SSL', 'env.RUNTIME_DISABLE_SSL'],
  storageClass: ['runtime-api.env.STORAGE_CLASS', 'env.STORAGE_CLASS'],
  applicationHost: ['ingress.host'],
  loginHost: ['keycloak.ingress.hostname'],
  runtimeApiHost: ['runtime-api.ingress.host'],
  sandboxNamespace: ['runtime-api.sandbox_namespace'],
  embeddedDatabase: ['postgresql.enabled'],
  externalDatabaseHost: ['externalDatabase.host'],
} as const satisfies Record<string, readonly [string, ...string[]]>;

type SettingPaths = (typeof SETTING_PATHS)[keyof typeof SETTING_PATHS];

/** A setting's value as text and the YAML path it came from (the chart's path when it is unset). */
export interface Setting {
  path: string;
  value: string | undefined;
}

const CHART_DEFAULT_URL_PATTERN = 'https://{runtime_id}.runtime.app.example.com';
const DEFAULT_SEPARATOR = '.';
const ALLOWED_SEPARATORS = ['.', '-'];

/** Reads a setting from the first of its paths that holds a value. */
export function readSetting(values: ValuesDocument, paths: SettingPaths): Setting {
  return settingsGiven(values, paths)[0] ?? { path: paths[0], value: undefined };
}

/** Every path of a setting that holds a non-empty scalar, in path order, with its value as text. */
function settingsGiven(values: ValuesDocument, paths: SettingPaths): Array<{ path: string; value: string }> {
  return paths.flatMap((path) => {
    const value = scalarText(readPath(values, path.split('.')));
    return value === undefined || value === '' ? [] : [{ path, value }];
  });
}

function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** Cluster facts the values rules may need, fetched only when a rule asks. */
export interface ClusterLookups {
  storageClasses: () => Promise<StorageClassListing>;
}

/**
 * Runs every values rule on a parsed values file and returns one check per rule, each naming the YAML
 * path it read. Only the storage-class rule reaches outside, through `cluster`, and only when a
 * storage class is set.
 */
export async function checkHelmValues(values: ValuesDocument, cluster: ClusterLookups): Promise<Check[]> {
  const pattern = readSetting(values, SETTING_PATHS.urlPattern);
  const separator = readSetting(values, SETTING_PATHS.separator);
  const baseDomain = readSetting(values, SETTING_PATHS.baseDomain);
  const sandboxUrl = readSandboxUrl(pattern, separator);
  const applicationHost = readSetting(values, SETTING_PATHS.applicationHost);
  return [
    checkUrlPattern(pattern, separator, baseDomain, sandboxUrl),
    checkBaseDomain(baseDomain, pattern, sandboxUrl),
    checkDisableSsl(readSetting(values, SETTING_PATHS.disableSsl), sandboxUrl),
    await checkStorageClass(readSetting(values, SETTING_PATHS.storageClass), cluster),
    checkDatabase(values),
    checkRequiredHost('application host', applicationHost, 'app.example.com'),
    checkLoginHost(readSetting(values, SETTING_PATHS.loginHost), applicationHost),
    checkRequiredHost('runtime-API host', readSetting(values, SETTING_PATHS.runtimeApiHost), 'runtime-api.example.com'),
    checkSandboxWildcardHost(pattern, sandboxUrl),
    checkNamespaces(readSetting(values, SETTING_PATHS.sandboxNamespace)),
    ...checkConflictingSettings(values),
  ];
}

/** The sandbox URL pattern taken apart, or what is wrong with it. */
export type SandboxUrl =
  | { ok: true; scheme: 'http' | 'https'; separator: string; domain: string; isChartDefault: boolean }
  | { ok: false; problem: string };

/**
 * Takes `https://{runtime_id}<separator><domain>` apart, using the chart default pattern when none is
 * set, because that default is what the chart would deploy.
 */
export function readSandboxUrl(pattern: Setting, separatorSetting: Setting): SandboxUrl {
  const separator = separatorSetting.value ?? DEFAULT_SEPARATOR;
  if (!ALLOWED_SEPARATORS.includes(separator)) {
    return { ok: false, problem: `${separatorSetting.path} is "${separator}", but a host name allows only "." or "-" there` };
  }
  const text = pattern.value ?? CHART_DEFAULT_URL_PATTERN;
  const match = /^(https?):\/\/\{runtime_id\}(.*)$/.exec(text);
  if (match === null) return { ok: false, problem: 'does not start with https://{runtime_id}' };
  const rest = match[2] ?? '';
  if (!rest.startsWith(separator)) {
    return { ok: false, problem: `follows {runtime_id} with "${rest.charAt(0)}", but ${separatorSetting.path} is "${separator}"` };
  }
  const domain = rest.slice(separator.length).toLowerCase();
  if (!isHostname(domain)) return { ok: false, problem: `has "${domain}" after {runtime_id}${separator}, which is not a bare domain` };
  return { ok: true, scheme: match[1] === 'http' ? 'http' : 'https', separator, domain, isChartDefault: pattern.value === undefined };
}

function isHostname(text: string): boolean {
  const label = '[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?';
  return new RegExp(`^${label}(\\.${label})+$`, 'i').test(text);
}

function suggestedPattern(separator: Setting, baseDomain: Setting): string {
  return `https://{runtime_id}${separator.value ?? DEFAULT_SEPARATOR}${baseDomain.value ?? '<runtime-base-domain>'}`;
}

function checkUrlPattern(pattern: Setting, separator: Setting, baseDomain: Setting, sandboxUrl: SandboxUrl): Check {
  const name = 'sandbox URL pattern';
  const fix = `Set ${pattern.path} to "${suggestedPattern(separator, baseDomain)}".`;
  if (pattern.value === undefined) {
    return fail(name, `${pattern.path} is unset, so the chart default "${CHART_DEFAULT_URL_PATTERN}", a placeholder, applies`, fix, pattern.path);
  }
  if (!sandboxUrl.ok) return fail(name, `${pattern.path} "${pattern.value}" ${sandboxUrl.problem}`, fix, pattern.path);
  if (sandboxUrl.scheme !== 'https') {
    return fail(
      name,
      `${pattern.path} "${pattern.value}" uses http; sandbox URLs have the form https://{runtime_id}${sandboxUrl.separator}<domain>`,
      fix,
      pattern.path,
    );
  }
  return pass(name, `${pattern.path} is "${pattern.value}"`, pattern.path);
}

function checkBaseDomain(baseDomain: Setting, pattern: Setting, sandboxUrl: SandboxUrl): Check {
  const name = 'sandbox base domain';
  if (baseDomain.value === undefined) {
    const domain = sandboxUrl.ok ? sandboxUrl.domain : '<runtime-base-domain>';
    return fail(name, `${baseDomain.path} is unset`, `Set ${baseDomain.path} to "${domain}", the domain in ${pattern.path}.`, baseDomain.path);
  }
  if (!isHostname(baseDomain.value)) {
    return fail(
      name,
      `${baseDomain.path} "${baseDomain.value}" is not a bare domain`,
      `Set ${baseDomain.path} to a domain without scheme or path, such as runtime.example.com.`,
      baseDomain.path,
    );
  }
  if (!sandboxUrl.ok) {
    return warn(
      name,
      `${baseDomain.path} is "${baseDomain.value}", not compared because ${pattern.path} is not usable`,
      `Fix ${pattern.path} first, then rerun the doctor.`,
      baseDomain.path,
    );
  }
  if (baseDomain.value.toLowerCase() !== sandboxUrl.domain) {
    const patternText = sandboxUrl.isChartDefault ? `${pattern.path} (unset, chart default)` : pattern.path;
    return fail(
      name,
      `${baseDomain.path} is "${baseDomain.value}" but ${patternText} points at "${sandboxUrl.domain}"`,
      `Make ${baseDomain.path} and the domain in ${pattern.path} the same.`,
      baseDomain.path,
    );
  }
  return pass(name, `${baseDomain.path} "${baseDomain.value}" matches the domain of ${pattern.path}`, baseDomain.path);
}

function checkDisableSsl(disableSsl: Setting, sandboxUrl: SandboxUrl): Check {
  const name = 'sandbox SSL';
  if (sandboxUrl.ok && sandboxUrl.scheme === 'http') {
    return pass(name, `${disableSsl.path} does not matter for http sandbox URLs`, disableSsl.path);
  }
  const fix = `Set ${disableSsl.path}: "false".`;
  if (disableSsl.value === undefined) {
    return fail(name, `${disableSsl.path} is unset and defaults to "true", which breaks https sandbox URLs`, fix, disableSsl.path);
  }
  if (disableSsl.value.toLowerCase() !== 'false') {
    return fail(name, `${disableSsl.path} is "${disableSsl.value}"; it must be "false" for https sandbox URLs`, fix, disableSsl.path);
  }
  return pass(name, `${disableSsl.path} is "false", as https sandbox URLs need`, disableSsl.path);
}

async function checkStorageClass(storageClass: Setting, cluster: ClusterLookups): Promise<Check> {
  const name = 'storage class';
  const path = storageClass.path;
  if (storageClass.value === undefined) {
    return fail(
      name,
      `${path} is unset, and sandboxes do not start without a storage class`,
      `Set ${path} to a storage class that \`kubectl get storageclass\` lists.`,
      path,
    );
  }
  const wanted = storageClass.value;
  const listing = await cluster.storageClasses();
  if (listing.kind === 'kubectl-absent') {
    return warn(
      name,
      `${path} is "${wanted}"; kubectl is not on PATH, so its existence was not checked`,
      'Run the doctor where kubectl reaches the target cluster, or check `kubectl get storageclass` yourself.',
      path,
    );
  }
  if (listing.kind === 'kubectl-failed') {
    return warn(
      name,
      `${path} is "${wanted}"; kubectl get storageclass failed (${listing.reason}), so its existence was not checked`,
      'Point kubectl at the target cluster and rerun the doctor.',
      path,
    );
  }
  if (!listing.names.includes(wanted)) {
    const existing = listing.names.length === 0 ? 'the cluster has none' : `the cluster has ${listing.names.map((n) => `"${n}"`).join(', ')}`;
    return fail(
      name,
      `${path} "${wanted}" is not a storage class of the cluster: ${existing}`,
      `Set ${path} to one of the cluster's storage classes.`,
      path,
    );
  }
  return pass(name, `${path} "${wanted}" exists in the cluster`, path);
}

function checkDatabase(values: ValuesDocument): Check {
  const name = 'database';
  const [enabledPath] = SETTING_PATHS.embeddedDatabase;
  const enabled = readSetting(values, SETTING_PATHS.embeddedDatabase).value;
  if (enabled === undefined || enabled.toLowerCase() === 'true') {
    const state = enabled === undefined ? 'unset (default true)' : 'true';
    return warn(
      name,
      `${enabledPath} is ${state}: the embedded PostgreSQL is for evaluation only, with no migration path to an external database`,
      'For anything beyond evaluation, set postgresql.enabled: false and fill externalDatabase (host, port, username, existingSecret) before the first install.',
      enabledPath,
    );
  }
  const host = readSetting(values, SETTING_PATHS.externalDatabaseHost);
  if (host.value === undefined) {
    return fail(
      name,
      `${enabledPath} is ${enabled} but ${host.path} is unset, so there is no database`,
      `Set ${host.path} (and port, username, existingSecret) of the external PostgreSQL.`,
      host.path,
    );
  }
  return pass(name, `external PostgreSQL at ${host.path} "${host.value}"`, host.path);
}

function checkHostSetting(name: string, host: Setting, example: string): Check | undefined {
  if (host.value === undefined) return fail(name, `${host.path} is unset`, `Set ${host.path} to the host name, for example ${example}.`, host.path);
  if (!isHostname(host.value)) {
    return fail(name, `${host.path} "${host.value}" is not a host name`, `Set ${host.path} to a bare host name, for example ${example}.`, host.path);
  }
  return undefined;
}

function checkRequiredHost(name: string, host: Setting, example: string): Check {
  return checkHostSetting(name, host, example) ?? pass(name, `${host.path} is "${host.value}"`, host.path);
}

function checkLoginHost(host: Setting, applicationHost: Setting): Check {
  const name = 'login host';
  const example = applicationHost.value === undefined ? 'auth.app.example.com' : `auth.${applicationHost.value}`;
  const problem = checkHostSetting(name, host, example);
  if (problem !== undefined) return problem;
  if (!host.value?.startsWith('auth.')) {
    return warn(
      name,
      `${host.path} "${host.value}" does not start with auth.`,
      `Use an auth. host name for the login host, for example ${example}.`,
      host.path,
    );
  }
  return pass(name, `${host.path} is "${host.value}"`, host.path);
}

function checkSandboxWildcardHost(pattern: Setting, sandboxUrl: SandboxUrl): Check {
  const name = 'sandbox wildcard host';
  if (!sandboxUrl.ok) {
    return warn(
      name,
      `cannot derive the wildcard sandbox host because ${pattern.path} is not usable`,
      `Fix ${pattern.path} first, then rerun the doctor.`,
      pattern.path,
    );
  }
  // With "-" each sandbox is one label under the parent of the base domain ({id}-runtime.example.com).
  const wildcardParent = sandboxUrl.separator === '.' ? sandboxUrl.domain : sandboxUrl.domain.slice(sandboxUrl.domain.indexOf('.') + 1);
  if (!wildcardParent.includes('.')) {
    return fail(
      name,
      `sandbox hosts {runtime_id}${sandboxUrl.separator}${sandboxUrl.domain} would need the wildcard *.${wildcardParent}, a top-level domain`,
      `Put the sandbox domain in ${pattern.path} under a domain you own.`,
      pattern.path,
    );
  }
  return pass(
    name,
    `sandboxes are served at {runtime_id}${sandboxUrl.separator}${sandboxUrl.domain} (from ${pattern.path}); DNS and the TLS certificate need *.${wildcardParent}`,
    pattern.path,
  );
}

function checkNamespaces(sandboxNamespace: Setting): Check {
  const name = 'namespaces';
  if (sandboxNamespace.value === undefined) {
    return warn(
      name,
      `${sandboxNamespace.path} is empty, so sandboxes run in the release namespace beside the application`,
      `Set ${sandboxNamespace.path} to a namespace of their own, for example openhands-sandboxes.`,
      sandboxNamespace.path,
    );
  }
  return pass(
    name,
    `sandboxes run in namespace "${sandboxNamespace.value}" (${sandboxNamespace.path}); install the release in a different one`,
    sandboxNamespace.path,
  );
}

/** Reports settings given different values at two of their paths, since only one of them is read. */
function checkConflictingSettings(values: ValuesDocument): Check[] {
  return Object.values(SETTING_PATHS)
    .filter((paths) => paths.length > 1)
    .flatMap((paths) => {
      const given = settingsGiven(values, paths);
      if (new Set(given.map((entry) => entry.value)).size < 2) return [];
      const listing = given.map((entry) => `${entry.path} "${entry.value}"`).join(' and ');
      return [
        warn('conflicting values', `${listing} differ; the doctor read ${given[0]?.path}`, `Keep one of them, at ${paths[0]}.`, given[0]?.path),
      ];
    });
}
