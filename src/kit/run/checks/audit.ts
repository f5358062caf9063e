/**
 * Audits judge the traffic every other check caused, so they run last: each 200, 404 and
 * 422 body against openapi.yaml, and no 5xx at all.
 */
import { verdict, type Check } from '../types';

const responsesMatchSchema: Check = {
  id: 'schema.responses',
  level: 'seed',
  title: 'every 200, 404 and 422 body of the run validates against the schema openapi.yaml declares for that status',
  audit: true,
  async run(context) {
    const { schemaViolations, validatedByStatus } = context.audit;
    const counts = [...validatedByStatus.entries()].map(([status, count]) => `${count} × ${status}`).join(', ');
    return verdict(
      schemaViolations.map(({ exchange, errors }) => ({
        message: `${exchange.status} body (sent by ${exchange.checkId}) does not match the schema: ${errors.join('; ')}`,
        expected: `the ${exchange.status} response schema of openapi.yaml`,
        exchange,
      })),
      `validated ${counts || 'no responses'}`,
    );
  },
};

const noServerErrors: Check = {
  id: 'errors.no-server-errors',
  level: 'seed',
  title: 'no request of the run, valid or not, is answered with a 5xx',
  audit: true,
  async run(context) {
    return verdict(
      context.audit.serverErrors.map((exchange) => ({
        message: `${exchange.status} for a request of ${exchange.checkId}`,
        expected: 'a 200, 404 or 422 as the contract declares',
        exchange,
      })),
    );
  },
};

const answersDeclared: Check = {
  id: 'responses.declared',
  level: 'seed',
  title: 'every answer of the run has a status its operation declares and the content type declared for that status',
  audit: true,
  async run(context) {
    return verdict(
      context.audit.undeclaredAnswers.map(({ exchange, errors }) => ({
        message: `${errors.join('; ')} (sent by ${exchange.checkId})`,
        expected: 'a status and a content type openapi.yaml declares for the operation',
        exchange,
      })),
    );
  },
};

export function auditChecks(): Check[] {
  return [responsesMatchSchema, answersDeclared, noServerErrors];
}
