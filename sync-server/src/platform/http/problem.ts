import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { FieldError, IllegalTransitionError, Problem } from '../../../../core/index.ts';

/**
 * RFC 9457 problem details: every error — ours and Fastify's — is `application/problem+json` with
 * `{ type, title, status, detail, code }` and, for validation, `errors: [{ path, message }]`.
 */
export const PROBLEM_TYPE_BASE = 'https://register.example/problems/';

/** The problem body and its field errors: core/problem.ts (shared with the register's back office). */
export type { FieldError, Problem };

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  426: 'Upgrade Required',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
};

/** An error that becomes a problem response. Throw it anywhere in a route. */
export class ProblemError extends Error {
  override name = 'ProblemError';
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
  }

  toProblem(): Problem {
    return problem(this.status, this.code, this.message, this.errors);
  }
}

/** Names of the records with a state machine, for problem details. */
const ENTITY_LABELS: Record<IllegalTransitionError['entity'], string> = {
  order: 'Order',
  payment: 'Payment',
  invoice: 'Invoice',
  invoice_series: 'Invoice series',
  pay_request: 'Pay request',
  app: 'App',
};

/**
 * 409 `illegal_state_transition` for a move a state machine refuses: the body names the `entity`, its
 * `entityId` and its `currentState`.
 */
export class StateConflictError extends ProblemError {
  constructor(
    readonly entity: string,
    readonly entityId: string,
    readonly currentState: string,
    detail: string,
  ) {
    super(409, 'illegal_state_transition', detail);
  }

  /** The 409 for core's {@link IllegalTransitionError} on the record `entityId`. */
  static fromTransition(err: IllegalTransitionError, entityId: string): StateConflictError {
    return new StateConflictError(
      err.entity,
      entityId,
      err.currentState,
      `${ENTITY_LABELS[err.entity]} ${entityId} is ${err.currentState}: cannot ${err.action} it.`,
    );
  }

  override toProblem(): Problem {
    return { ...problem(this.status, this.code, this.message), entity: this.entity, entityId: this.entityId, currentState: this.currentState };
  }
}

export function problem(status: number, code: string, detail: string, errors?: FieldError[]): Problem {
  return {
    type: `${PROBLEM_TYPE_BASE}${code}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    code,
    ...(errors && errors.length > 0 ? { errors } : {}),
  };
}

export function sendProblem(reply: FastifyReply, p: Problem, headers?: Record<string, string>): FastifyReply {
  if (headers) reply.headers(headers);
  return reply.code(p.status).type('application/problem+json').send(p);
}

/** zod issues → `[{ path: 'lineItems.0.quantity', message }]`; the root is `(body)`/`(query)`. */
export function zodFieldErrors(error: z.ZodError, root = '(body)'): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      const base = issue.path.join('.');
      for (const key of issue.keys) out.push({ path: base ? `${base}.${key}` : key, message: 'is not a known field' });
      continue;
    }
    out.push({ path: issue.path.length > 0 ? issue.path.map(String).join('.') : root, message: issue.message });
  }
  return out;
}

/**
 * Parses `input` with `schema` or throws a 400 `validation_error` problem whose detail names every offending field.
 * `root` labels issues of the whole value (`(body)`, `(query)`).
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, root = '(body)'): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const errors = zodFieldErrors(result.error, root);
  const fields = [...new Set(errors.map((e) => e.path))];
  throw new ProblemError(400, 'validation_error', `Invalid ${fields.join(', ')}: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, errors);
}

/** The body of an action that takes no input (rotate a secret, pause a series): no body, or `{}`. */
export const emptyBodySchema = z.strictObject({});

/**
 * Checks the body of an action that takes no input: absent or `{}` passes; any field, `null`, an array or a scalar
 * is a 400 naming it (unknown fields are rejected, not ignored).
 * @throws ProblemError 400 `validation_error`.
 */
export function parseEmptyBody(body: unknown): void {
  parseOrThrow(emptyBodySchema, body === undefined ? {} : body);
}

/**
 * Fastify's `frameworkErrors` option: errors raised before a route is found (a URL that is not valid percent-encoding,
 * a path parameter longer than `maxParamLength`) are problems like every other error, not Fastify's own JSON.
 */
export function sendFrameworkProblem(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void sendProblem(reply, problem(414, 'uri_too_long', 'A path segment of the URL is too long (at most 100 characters).'));
    return;
  }
  void sendProblem(reply, problem(400, 'invalid_url', 'The URL is not valid: check its percent-encoding.'));
}

/** `1048576` → `1 MiB`, `16777216` → `16 MiB` (body limits in messages). */
function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}

/** Maps every error Fastify or a route throws to a problem response. A 5xx is logged: it is a bug. */
export function installProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ProblemError | Error, request, reply) => {
    if (error instanceof ProblemError) return sendProblem(reply, error.toProblem(), error.headers);
    const fe = error as FastifyError;
    switch (fe.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendProblem(
          reply,
          problem(413, 'body_too_large', `The request body is larger than ${formatBytes(request.routeOptions.bodyLimit ?? 1024 * 1024)}.`),
        );
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendProblem(reply, problem(415, 'unsupported_media_type', 'Send the body as Content-Type: application/json.'));
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendProblem(reply, problem(400, 'invalid_json', 'The body is empty but Content-Type is application/json.'));
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return sendProblem(reply, problem(400, 'invalid_json', `The body is not valid JSON: ${fe.message}`));
      default:
        break;
    }
    if (error instanceof SyntaxError || fe.statusCode === 400) {
      return sendProblem(reply, problem(400, 'invalid_json', `The request could not be read: ${error.message}`));
    }
    if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
      return sendProblem(reply, problem(fe.statusCode, 'bad_request', error.message));
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(reply, problem(500, 'internal_error', 'Something went wrong on the server; it has been logged.'));
  });
}
