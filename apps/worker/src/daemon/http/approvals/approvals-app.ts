import { type ApprovalRecord, ControlPlaneInputError } from '@switchyard/control-plane';
import { approvalView } from '../../daemon-approvals';
import type { ApiContext } from '../api-context';
import { found, HttpError } from '../http-error';
import { nextCursorOf, pageOf, refusedQuery } from '../paging';
import {
  authenticatedRoute,
  createResourceApp,
  errorResponse,
  jsonBody,
  jsonResponse,
  NO_STORE,
} from '../route-builders';
import { refuseOtherMethods, registerGetById, registerList } from '../route-registrars';
import { BODY_ERRORS, SHARED_ERRORS } from '../shared-error-responses';
import { IdParamSchema } from '../shared-schemas';
import {
  AnswerSchema,
  ApprovalArgumentsSchema,
  ApprovalListSchema,
  ApprovalSchema,
  approvalsQuerySchema,
} from './approval-schemas';

/** Registers `POST /v1/approvals/{id}`: allow runs the held call once; deny gives the model the reason. */
function registerAnswerApproval(
  app: ReturnType<typeof createResourceApp>,
  { options }: ApiContext,
  findApproval: (id: string) => Promise<ApprovalRecord>,
): void {
  const { controlPlane, turns } = options;
  app.openapi(
    authenticatedRoute(
      'post',
      {
        operationId: 'answerApproval',
        path: '/v1/approvals/{id}',
        summary: 'Answer an approval: allow runs the held call once; deny gives the model the reason',
      },
      { params: IdParamSchema, body: jsonBody(AnswerSchema) },
      {
        200: jsonResponse('Answered', ApprovalSchema),
        404: SHARED_ERRORS.noApproval.ref,
        409: errorResponse('Already answered, expired or cancelled'),
        ...BODY_ERRORS,
      },
    ),
    async (c) => {
      const { id } = c.req.valid('param');
      const body = c.req.valid('json');
      await findApproval(id);
      const outcome = found(
        await controlPlane.approvals
          .answer({
            id,
            decision: body.decision,
            ...(body.reason === undefined ? {} : { reason: body.reason }),
            answeredBy: body.via ?? 'api',
          })
          .catch((error: unknown) => {
            // A reason the records refuse (the schema checks the same): the client's to fix.
            if (!ControlPlaneInputError.isInstance(error)) throw error;
            throw new HttpError(400, 'invalid_body', `${error.field}: ${error.message}`, [error.field]);
          }),
        'approval',
        id,
      );
      if (outcome.status === 'already-decided') {
        throw new HttpError(
          409,
          'already_decided',
          `approval '${id}' is already ${outcome.approval.status}${outcome.approval.reason === undefined ? '' : ` (${outcome.approval.reason})`}`,
        );
      }
      turns.notifyDecision(outcome.approval);
      return c.json(approvalView(outcome.approval), 200, NO_STORE);
    },
  );
}

/**
 * The approvals' sub-app: list the approvals of held calls of the agents served, read one (and its
 * arguments whole), and answer it.
 */
export function createApprovalsApp(context: ApiContext) {
  const { controlPlane } = context.options;
  const app = createResourceApp();

  registerList(
    app,
    {
      operationId: 'listApprovals',
      path: '/v1/approvals',
      summary: 'Approvals of held calls of the agents served, newest first (default: pending ones)',
    },
    approvalsQuerySchema(context.fields),
    { description: 'A page of approvals', schema: ApprovalListSchema },
    async (query) => {
      // A bad cursor is refused before anything expires.
      const paging = pageOf(query);
      await controlPlane.approvals.expireDue();
      const page = await controlPlane.approvals
        .page({
          agentIds: context.served(query.agent),
          status: query.status ?? 'pending',
          ...(query.turn === undefined ? {} : { turnId: query.turn }),
          ...paging,
        })
        .catch(refusedQuery);
      return { approvals: page.approvals.map(approvalView), ...nextCursorOf(page.next) };
    },
  );

  /** An approval of an agent this daemon serves; 404 otherwise. */
  const findApproval = async (id: string): Promise<ApprovalRecord> => {
    const approval = await controlPlane.approvals.get(id);
    return found(
      approval !== undefined && context.serves(approval.agentId) ? approval : undefined,
      'approval',
      id,
    );
  };

  registerGetById(
    app,
    { operationId: 'getApproval', path: '/v1/approvals/{id}', summary: 'One approval' },
    SHARED_ERRORS.noApproval.ref,
    { description: 'The approval', schema: ApprovalSchema },
    async (id) => approvalView(await findApproval(id)),
  );

  registerGetById(
    app,
    {
      operationId: 'getApprovalArguments',
      path: '/v1/approvals/{id}/arguments',
      summary: 'The held call’s arguments, whole: exactly what runs if it is allowed',
    },
    SHARED_ERRORS.noApproval.ref,
    { description: 'The arguments as stored', schema: ApprovalArgumentsSchema },
    async (id) => {
      const approval = await findApproval(id);
      return { id: approval.id, argumentsBytes: approval.argumentsBytes, arguments: approval.arguments };
    },
  );

  registerAnswerApproval(app, context, findApproval);

  refuseOtherMethods(app, [
    ['/v1/approvals', ['GET']],
    ['/v1/approvals/:id', ['GET', 'POST']],
    ['/v1/approvals/:id/arguments', ['GET']],
  ]);
  return app;
}
