// The request pipeline: named stages run in order, the first that answers ends it. The order is
// credentials → route → method → size → media type → validation → handler, so 401 comes before
// every other answer (docs/certification.md §2: before any validation, and here before 404, 405, 413 and 415 too).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import {
  bodyMembers,
  escapeToken,
  loadContract,
  mediaTypeEssence,
  originForm,
  parsedBody,
  parseQuery,
  queryString,
  readCredentials,
  relativePath,
  validateRequest,
  MEDIA_TYPE,
  type Contract,
  type Finding,
  type HttpRequest,
  type Operation,
} from '../contract/index.ts';
import { announcesBody, decodeUtf8, discardRest, nestsDeeperThan, nonFiniteNumberAt, readBody } from './body.ts';
import { CreatedResources } from './create.ts';
import { judgeCredentials, knownTokens } from './credentials.ts';
import { MAX_NESTING_DEPTH } from './defaults.ts';
import type { ComposedHooks } from './hooks.ts';
import { fractionalPageFindings, referenceLists } from './list.ts';
import { maskedTarget } from './log.ts';
import { freshObjectIds } from './object-id.ts';
import { CONDITION_CODES, conditionProblem, errorReply, problemFromFinding, unauthorizedReply } from './problems.ts';
import { STAGE_ORDER, type Problem, type Reply, type RequestContext, type StageName, type Tokens } from './types.ts';

export interface PipelineConfig {
  tokens: Tokens;
  legacyHeader: string;
  maxBodyBytes: number;
  hooks: ComposedHooks;
  logger: Logger;
}

/** A stage answers with a reply, passes (undefined), or learns the client has gone (ABANDONED). */
const ABANDONED = Symbol('abandoned');
type StageResult = Reply | undefined | typeof ABANDONED;
type Stage = (context: PipelineContext) => StageResult | Promise<StageResult>;

interface PipelineContext extends RequestContext {
  response: ServerResponse;
  operations?: Map<string, Operation>;
  allow?: string;
  bodyBytes: Buffer;
}

/** Findings the credentials and media type stages answer for; validation leaves them out. */
const ANSWERED_BEFORE_VALIDATION = new Set(['AUTH-CREDENTIALS-PRESENT', 'AUTH-401-MALFORMED', 'MEDIA-TYPE-REQUEST']);

interface PathRoute {
  operations: Map<string, Operation>;
  allow: string;
}

/**
 * Operations by relative path and method; HEAD is served as GET (RFC 9110 9.3.2). The three
 * specified paths have no parameters, so they are matched literally.
 */
function pathRoutes(contract: Contract): Map<string, PathRoute> {
  const routes = new Map<string, PathRoute>();
  for (const operation of contract.operations) {
    const route = routes.get(operation.pathTemplate) ?? { operations: new Map(), allow: '' };
    route.operations.set(operation.method, operation);
    if (operation.method === 'GET') route.operations.set('HEAD', operation);
    route.allow = [...route.operations.keys()].join(', ');
    routes.set(operation.pathTemplate, route);
  }
  return routes;
}

export function createRequestHandler(
  config: PipelineConfig,
): (request: IncomingMessage, response: ServerResponse) => void {
  const contract = loadContract();
  const { hooks, logger, tokens } = config;
  const routes = pathRoutes(contract);
  const lists = referenceLists(contract, hooks);
  const created = new CreatedResources(hooks, freshObjectIds());
  const tokenSet = knownTokens(tokens);
  const isRelationship = contract.componentValidator('Relationship');

  const stages: Record<StageName, Stage> = {
    credentials(context) {
      const reading = readCredentials(context.headers, config.legacyHeader);
      const authorization = context.headers.authorization;
      context.serverDecision = judgeCredentials(reading, tokens, config.legacyHeader);
      const decision = hooks.credentials(context.serverDecision, { reading, authorization, tokens });
      context.credentialDecision = decision;
      if (decision.outcome === 'unauthenticated') return unauthorizedReply(decision.code, decision.detail);
      if (decision.outcome === 'forbidden') {
        return errorReply(403, [
          conditionProblem(
            403,
            'AUTH-403-FORBIDDEN',
            'the credential is valid but not permitted to use this operation',
          ),
        ]);
      }
      return undefined;
    },
    route(context) {
      const path = relativePath(context.target, contract.basePath);
      const route = path === null ? undefined : routes.get(path);
      if (!route)
        return errorReply(404, [
          conditionProblem(404, CONDITION_CODES.notFound, `no operation is served at ${context.target.split('?')[0]}`),
        ]);
      context.operations = route.operations;
      context.allow = route.allow;
      return undefined;
    },
    method(context) {
      context.operation = context.operations?.get(context.method);
      if (context.operation) return undefined;
      return errorReply(
        405,
        [
          conditionProblem(
            405,
            CONDITION_CODES.methodNotAllowed,
            `${context.method} is not served here; allowed: ${context.allow}`,
          ),
        ],
        { allow: context.allow ?? '' },
      );
    },
    size(context) {
      if (!announcesBody(context.headers)) return undefined;
      return readBody(context.request, config.maxBodyBytes, () => askForBody(context)).then((reading): StageResult => {
        if (reading.kind === 'aborted') return ABANDONED;
        if (reading.kind === 'too-large') {
          const problem = conditionProblem(
            413,
            CONDITION_CODES.bodyTooLarge,
            `request bodies are limited to ${config.maxBodyBytes} bytes`,
          );
          // A client waiting for 100 Continue sends no body: close. Any other is sending it: read
          // the rest away (bounded) so it reads the 413, not a reset.
          if (/100-continue/i.test(context.headers.expect ?? ''))
            return errorReply(413, [problem], { connection: 'close' });
          discardRest(context.request);
          return errorReply(413, [problem]);
        }
        context.bodyBytes = reading.bytes;
        return undefined;
      });
    },
    mediaType(context) {
      if (!context.operation?.requestBody || context.bodyBytes.length === 0) return undefined;
      const type = mediaTypeEssence(context.headers['content-type']);
      if (type === MEDIA_TYPE) return undefined;
      // Other request media types are not shown (docs/certification.md §3); JSON:API answers them 415.
      return errorReply(415, [
        conditionProblem(
          415,
          CONDITION_CODES.unsupportedMediaType,
          `request bodies must be ${MEDIA_TYPE}, got ${type || 'no Content-Type'}`,
        ),
      ]);
    },
    validate(context) {
      const operation = context.operation!;
      const text = decodeUtf8(context.bodyBytes);
      if (text === undefined) {
        context.findings = [
          contract.finding('REQ-MALFORMED-JSON', 'request', {
            message: 'the request body is not valid UTF-8, so it is not JSON text (RFC 8259 section 8.1)',
            expected: 'UTF-8 JSON',
            actual: 'invalid UTF-8',
          }),
        ];
        return errorReply(
          400,
          context.findings.map((f) => problemFromFinding(f, false)),
        );
      }
      if (nestsDeeperThan(text, MAX_NESTING_DEPTH)) {
        return errorReply(400, [
          conditionProblem(
            400,
            CONDITION_CODES.nestingTooDeep,
            `request documents may nest arrays and objects at most ${MAX_NESTING_DEPTH} deep`,
          ),
        ]);
      }
      context.bodyText = text;
      const request: HttpRequest = {
        method: context.method,
        path: context.target,
        headers: context.headers,
        bodyText: text,
      };
      // parsedBody keeps the parse, so the contract's validation below reads this same one.
      const parsed = text === '' ? undefined : parsedBody(request);
      if (parsed?.ok) context.document = parsed.value;
      if (operation.parameters.length > 0) context.query = parseQuery(operation, queryString(context.target));
      const found = requestFindings(contract, context, request);
      context.findings = hooks.findings(found, context);
      context.overlooked = found.filter((f) => !context.findings.includes(f));
      if (context.findings.length > 0)
        return rejectionReply(context.findings, operation, context.document, parsed?.ok === true);
      return (
        outOfRangeNumberReply(context.document) ??
        invalidRelationshipReply(isRelationship, context.document, namedRelationships(operation)) ??
        rejectionsReply(hooks.rejections([], context))
      );
    },
    handle(context) {
      const operation = context.operation!;
      if (operation.requestBody !== undefined) return created.create(operation, context);
      const list = lists.get(operation);
      if (list) return list.respond(context.query);
      return errorReply(404, [
        conditionProblem(
          404,
          CONDITION_CODES.notFound,
          `this server holds no records for ${operation.method} ${operation.pathTemplate}`,
        ),
      ]);
    },
  };

  const order = hooks.stageOrder([...STAGE_ORDER]).map((name) => stages[name]);

  async function run(context: PipelineContext): Promise<StageResult> {
    for (const stage of order) {
      const pending = stage(context);
      const result = pending instanceof Promise ? await pending : pending;
      if (result !== undefined) return result;
    }
    throw new Error('the pipeline ended without a reply');
  }

  return function handleRequest(request, response) {
    const started = performance.now();
    const context: PipelineContext = {
      request,
      response,
      method: request.method ?? 'GET',
      target: originForm(request.url ?? '/'),
      headers: request.headers,
      bodyText: '',
      bodyBytes: Buffer.alloc(0),
      query: {},
      findings: [],
      overlooked: [],
    };
    // A client that goes away mid-request must not become an unhandled error.
    request.on('error', () => undefined);
    run(context)
      .catch((error: unknown) => {
        logger.error(
          { err: error, method: context.method, path: maskedTarget(context.target, tokenSet) },
          'request failed',
        );
        return errorReply(500, [
          conditionProblem(500, CONDITION_CODES.internal, 'the server failed to answer this request'),
        ]);
      })
      .then((result) => {
        if (result === ABANDONED) {
          logger.info(
            {
              method: context.method,
              path: maskedTarget(context.target, tokenSet),
              aborted: true,
              ms: elapsed(started),
            },
            'request abandoned by the client',
          );
          return;
        }
        const reply = hooks.reply(result!, context);
        writeReply(response, reply);
        if (logger.isLevelEnabled('info'))
          logger.info(
            {
              method: context.method,
              path: maskedTarget(context.target, tokenSet),
              status: reply.status,
              ms: elapsed(started),
            },
            'request',
          );
      })
      // A reply hook or the write itself failing leaves no reply to send: the client's socket is
      // closed instead of waiting, and the process goes on serving.
      .catch((error: unknown) => {
        logger.error(
          { err: error, method: context.method, path: maskedTarget(context.target, tokenSet) },
          'writing the reply failed',
        );
        response.destroy();
      });
  };
}

/** What the contract finds wrong with the request, less what earlier stages answer for, plus fractional pages. */
function requestFindings(contract: Contract, context: PipelineContext, request: HttpRequest): Finding[] {
  return [
    ...validateRequest(contract, context.operation!, request).filter(
      (f) => !ANSWERED_BEFORE_VALIDATION.has(f.requirement),
    ),
    ...fractionalPageFindings(contract, context.operation!, context.query),
  ];
}

/** One error per finding: 409 when the only problem is a `data.type` of another resource (JSON:API), else 400. */
function rejectionReply(findings: Finding[], operation: Operation, document: unknown, bodyParsed: boolean): Reply {
  if (isTypeConflict(findings, operation, document)) {
    return errorReply(
      409,
      findings.map((f) => ({ ...problemFromFinding(f, true), title: 'Resource type conflict' })),
    );
  }
  return errorReply(
    400,
    findings.map((f) => problemFromFinding(f, bodyParsed)),
  );
}

/** A client that sent `Expect: 100-continue` waits for this before sending the body (RFC 9110 10.1.1). */
function askForBody(context: PipelineContext): void {
  if (/^100-continue$/i.test(String(context.headers.expect ?? '').trim())) context.response.writeContinue();
}

/**
 * JSON.parse reads a number beyond the double range (1e400) as Infinity, which JSON cannot
 * carry back: such a number in a member the contract leaves free-form is answered 400.
 */
function outOfRangeNumberReply(document: unknown): Reply | undefined {
  const pointer = nonFiniteNumberAt(document);
  if (pointer === undefined) return undefined;
  return errorReply(400, [
    conditionProblem(400, CONDITION_CODES.numberOutOfRange, `${pointer} is a number too large to represent`, {
      pointer,
    }),
  ]);
}

/** Problems a server that is stricter than the contract answers 400 for (none on the reference server). */
function rejectionsReply(problems: Problem[]): Reply | undefined {
  return problems.length > 0 ? errorReply(400, problems) : undefined;
}

const relationshipNames = new WeakMap<Operation, Set<string>>();

/** The relationships the operation's request schema names (Highlight: `owner`); validation has judged those already. */
function namedRelationships(operation: Operation): Set<string> {
  let names = relationshipNames.get(operation);
  if (!names) {
    names = new Set(
      bodyMembers(operation)
        .map((m) => /^\/data\/relationships\/([^/]+)$/.exec(m.pointer)?.[1])
        .filter((name): name is string => name !== undefined),
    );
    relationshipNames.set(operation, names);
  }
  return names;
}

/**
 * Section 2.1 maps every relationship name to a Relationship object; the Highlight schema names
 * only `owner`, so this server checks the others before it echoes them back.
 */
function invalidRelationshipReply(
  isRelationship: (value: unknown) => boolean,
  document: unknown,
  named: Set<string>,
): Reply | undefined {
  const relationships = (document as { data?: { relationships?: unknown } } | undefined)?.data?.relationships;
  if (relationships === null || typeof relationships !== 'object') return undefined;
  const invalid = Object.entries(relationships)
    .filter(([name, value]) => !named.has(name) && !isRelationship(value))
    .map(([name]) => name);
  if (invalid.length === 0) return undefined;
  return errorReply(
    400,
    invalid.map((name) =>
      conditionProblem(
        400,
        CONDITION_CODES.invalidRelationship,
        `relationship "${name}" must be a Relationship object: data (a resource identifier, an array of them, or null), links, meta`,
        { pointer: `/data/relationships/${escapeToken(name)}` },
      ),
    ),
  );
}

/** A conflict in the JSON:API sense: the only problem is a `data.type` of another resource type. */
function isTypeConflict(findings: Finding[], operation: Operation, document: unknown): boolean {
  const type = (document as { data?: { type?: unknown } } | undefined)?.data?.type;
  return (
    typeof type === 'string' && type !== operation.resourceType && findings.every((f) => f.pointer === '/data/type')
  );
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}

function writeReply(response: ServerResponse, reply: Reply): void {
  const body = reply.json ?? (reply.document === undefined ? '' : JSON.stringify(reply.document));
  response.writeHead(reply.status, {
    'content-type': reply.contentType,
    'content-length': Buffer.byteLength(body),
    ...reply.headers,
  });
  response.end(body);
}
