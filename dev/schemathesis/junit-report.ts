/**
 * Reads the JUnit XML report Schemathesis writes (`--report junit`): one `testcase` per API
 * operation (and one for the stateful phase), each with `failure`, `error` or `skipped`
 * elements. Only the shape its writer produces (Python's ElementTree) is read, not XML at large.
 */

export interface JUnitOutcome {
  readonly kind: 'failure' | 'error' | 'skipped';
  /** For failures, the Schemathesis codes found, such as `ST108, ST201`. */
  readonly message: string;
  /** The findings as Schemathesis prints them, each with its request and a curl line. */
  readonly text: string;
}

export interface JUnitTestCase {
  /** `GET /api/...`, or `Stateful tests`. */
  readonly name: string;
  readonly outcomes: readonly JUnitOutcome[];
}

const TEST_CASE = /<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g;
const OUTCOME = /<(failure|error|skipped)\b([^>]*?)(?:\/>|>([\s\S]*?)<\/\1>)/g;

function attribute(attributes: string, name: string): string {
  const match = new RegExp(`\\b${name}="([^"]*)"`).exec(attributes);
  return match ? unescapeXml(match[1] as string) : '';
}

function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|lt|gt|quot|apos|amp);/g, (_whole, entity: string) => {
    if (entity.startsWith('#x')) return String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(Number(entity.slice(1)));
    return { lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' }[entity] as string;
  });
}

export function readJUnitReport(xml: string): JUnitTestCase[] {
  if (!xml.includes('<testsuites')) throw new Error('Not a JUnit XML report: no <testsuites> element.');
  return [...xml.matchAll(TEST_CASE)].map(([, attributes = '', body = '']) => ({
    name: attribute(attributes, 'name'),
    outcomes: [...body.matchAll(OUTCOME)].map(([, kind, outcomeAttributes = '', text = '']) => ({
      kind: kind as JUnitOutcome['kind'],
      message: attribute(outcomeAttributes, 'message'),
      text: unescapeXml(text),
    })),
  }));
}

/** Each finding of a failure's text: Schemathesis numbers them `1. Test Case ID: ...`. */
export function findingsOf(outcome: JUnitOutcome): string[] {
  return outcome.text
    .split(/^(?=\d+\. Test Case ID: )/m)
    .map((finding) => finding.trim())
    .filter(Boolean);
}
