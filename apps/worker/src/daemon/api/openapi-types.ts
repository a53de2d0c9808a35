// Generated from the OpenAPI document of `switchyard serve` (apps/worker/openapi.json) by
// openapi-typescript: do not edit. src/daemon/api/openapi-document.test.ts regenerates it.

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: serving or draining */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/turns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Recorded turns of the agents served, newest first */
        get: operations["listTurns"];
        put?: never;
        /** Start a turn */
        post: operations["startTurn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/turns/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One turn, whichever process ran it */
        get: operations["getTurn"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/turns/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The turn’s events: replayed, then live, ending after turn-end
         * @description Server-sent events, `event: <type>` and `data: <JSON>`: core’s turn-start, model-request-start, text-delta, model-request-end, tool-call-start, tool-call-progress, tool-call-end (its data is a ToolCallEndEvent, see components) and turn-end, and approval-requested / approval-resolved when a call is held for an approval. For a turn of another process or an earlier run: its recorded log, followed until it ends (tool-call-end outcomes recorded by an older worker are sent in today’s vocabulary).
         */
        get: operations["getTurnEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/turns/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a turn, whichever process runs it
         * @description This process aborts its own turn at once; another process aborts its turn at its next heartbeat; a turn waiting for approval whose process is gone is ended by the next process that looks. Every pending call gets a "cancelled" output. Cancelling a task or job turn fails that attempt like any aborted turn (the unit is retried by its policy): cancel the workflow to stop the work.
         */
        post: operations["cancelTurn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/approvals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Approvals of held calls of the agents served, newest first (default: pending ones) */
        get: operations["listApprovals"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/approvals/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One approval */
        get: operations["getApproval"];
        put?: never;
        /** Answer an approval: allow runs the held call once; deny gives the model the reason */
        post: operations["answerApproval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflows": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Recent workflows of the agents served, newest first (50 per agent) */
        get: operations["listWorkflows"];
        put?: never;
        /**
         * Start a workflow (checked as the workflow tool checks it)
         * @description Tasks without dependsOn start at once, in parallel; each runs as a task turn and stores a result matching its resultSchema. Send an `Idempotency-Key` header to start one workflow however often the request is retried.
         */
        post: operations["startWorkflow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflows/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One workflow: its tasks, their statuses and stored results */
        get: operations["getWorkflow"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflows/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a workflow: pending and queued tasks never start, running ones are aborted */
        post: operations["cancelWorkflow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every turn and approval of the agents served, live (for a console)
         * @description Server-sent events: `event: turn` (a turn started, changed status or ended, in any process: the Turn), `event: turn-event` (`{ turnId, agent, event }`: each event of a turn this process runs; a tool-call-end event is a ToolCallEndEvent), `event: approval` (an approval asked for, answered, expired or cancelled, in any process: the Approval). Other processes’ changes arrive within a poll of the records (about a second).
         */
        get: operations["getEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Who the caller is to this daemon (full or read-only access) and the agents it serves
         * @description A console calls it first: 401 means it needs a token. `access` is `read-only` for the read-only token, whose requests may only GET.
         */
        get: operations["getSession"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/schedules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The schedules of the agents served, with their next fire times and recent runs
         * @description What `switchyard schedules list` reads: active schedules, or every one with `all=true`, newest first per agent. `runs` come from the control plane’s run ledger (one row per schedule slot that fired, however often it was delivered), newest first, at most 10, each with the newest turn that ran it.
         */
        get: operations["listSchedules"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tool manifest an agent’s next text turn would send
         * @description The rows `switchyard tools --json` prints: each tool’s category, strict or why not, deferred or not, access and schema bytes, with totals. MCP tools come from the daemon’s open connections.
         */
        get: operations["listTools"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        ToolCallEndEvent: {
            /** @enum {string} */
            type: "tool-call-end";
            callId: string;
            name: string;
            namespace?: string;
            /**
             * @description How the call ended. `completed`: execute returned a result without isError (the only success). `tool-error`: the tool returned an error result, threw, or returned nothing usable. `invalid-arguments`, `denied`, `unknown-tool`, `skipped` (an earlier call of the response ended the turn): nothing ran. `timeout`, `cancelled` (the turn was aborted). Turns recorded before this set existed are sent with their `completed`-with-isError and `error` outcomes read as `tool-error`.
             * @example tool-error
             * @enum {string}
             */
            outcome: "completed" | "tool-error" | "invalid-arguments" | "denied" | "timeout" | "cancelled" | "unknown-tool" | "skipped";
            /** @example Read 120 lines of notes/todo.md */
            activity: string;
            /** @description 0 for a call that never started */
            durationMs: number;
            /** @description Always `outcome !== 'completed'` */
            isError: boolean;
            repairs: string[];
            /** @description The result recorded as the call’s output, as the model saw it */
            result: {
                content: string | unknown[];
            } & {
                [key: string]: unknown;
            };
            resultCut?: unknown;
            endsTurn: boolean;
        } & {
            [key: string]: unknown;
        };
        Error: {
            error: {
                /** @example invalid_body */
                code: string;
                message: string;
                fields?: string[];
            };
        };
        Health: {
            /** @enum {string} */
            status: "serving" | "draining";
            runningTurns: number;
        };
        Turn: {
            /** @example turn_4d0c6a3e-0f3e-4a57-9d0e-2d6f3c1b8a10 */
            id: string;
            agent: string;
            /** @enum {string} */
            source: "api" | "schedule" | "job" | "task";
            sourceId?: string;
            /** @enum {string} */
            status: "running" | "waiting-approval" | "completed" | "incomplete" | "ended-by-tool" | "aborted" | "max-iterations" | "failed" | "interrupted";
            output: string;
            usage: components["schemas"]["Usage"];
            iterations: number;
            createdAt: string;
            endedAt?: string;
            error?: string;
        };
        Usage: {
            inputTokens: number;
            cachedInputTokens: number;
            outputTokens: number;
            reasoningTokens: number;
            totalTokens: number;
        };
        TurnRequest: {
            prompt: string;
            /** @description An agent this daemon serves (default: its first) */
            agent?: string;
        };
        TurnList: {
            turns: components["schemas"]["Turn"][];
            /** @description Pass as `cursor` for the next page; absent on the last. */
            nextCursor?: string;
        };
        ApprovalList: {
            approvals: components["schemas"]["Approval"][];
            nextCursor?: string;
        };
        Approval: {
            /** @example approval_9f1c2b7e-3d4a-4c5b-8e6f-7a8b9c0d1e2f */
            id: string;
            turnId: string;
            callId: string;
            agent: string;
            /** @enum {string} */
            source: "api" | "schedule" | "job" | "task";
            /** @example write_file */
            toolKey: string;
            /** @example Writing notes/plan.md */
            activity: string;
            /** @description The arguments as validated */
            arguments?: unknown;
            approvers: string[];
            /** @enum {string} */
            status: "pending" | "allowed" | "denied" | "expired" | "cancelled";
            reason?: string;
            answeredBy?: string;
            createdAt: string;
            expiresAt: string;
            decidedAt?: string;
            consumedAt?: string;
        };
        ApprovalAnswer: {
            /** @enum {string} */
            decision: "allow" | "deny";
            reason?: string;
        };
        Workflow: {
            id: string;
            agent: string;
            name: string;
            /** @enum {string} */
            status: "running" | "completed" | "failed" | "cancelled";
            createdAt: string;
            finishedAt: string | null;
            tasks: {
                id: string;
                /** @enum {string} */
                status: "pending" | "queued" | "running" | "completed" | "failed" | "cancelled";
                dependsOn: string[];
                /** @description The stored result, or null */
                result?: unknown;
                error: string | null;
                attempts: number;
            }[];
        };
        WorkflowRequest: {
            /** @description An agent this daemon serves (default: its first) */
            agent?: string;
            name: string;
            tasks: {
                id: string;
                prompt: string;
                /** @description JSON Schema of the task result (closed shapes only) */
                resultSchema: {
                    [key: string]: unknown;
                };
                dependsOn?: string[];
            }[];
        };
        WorkflowList: {
            workflows: components["schemas"]["WorkflowSummary"][];
        };
        WorkflowSummary: {
            id: string;
            agent: string;
            name: string;
            /** @enum {string} */
            status: "running" | "completed" | "failed" | "cancelled";
            createdAt: string;
            finishedAt: string | null;
            taskCounts: {
                [key: string]: number;
            };
        };
        Session: {
            /**
             * @description `read-only` when the request used the read-only token (it may only GET); `full` with the bearer token, or when no token is configured
             * @enum {string}
             */
            access: "full" | "read-only";
            /** @description The agents this daemon serves */
            agents: string[];
            /** @description The agent of a turn or workflow started without one */
            defaultAgent: string;
            /** @description The worker’s version */
            version: string;
        };
        ScheduleList: {
            items: components["schemas"]["Schedule"][];
        };
        Schedule: {
            id: string;
            agent: string;
            name: string;
            /** @enum {string} */
            status: "active" | "cancelled" | "finished";
            /** @enum {string} */
            kind: "cron" | "once";
            /** @description The 5-field cron expression (kind cron) */
            cron?: string;
            /** @description The one-shot time, local ISO 8601 with offset (kind once) */
            runAt?: string;
            /** @description The IANA zone the cron and the times are read in */
            timeZone: string;
            /** @description The next (up to) three fire times, ISO 8601 with the zone’s offset */
            nextFireTimes: string[];
            prompt: string;
            createdAt: string;
            /** @description Its recent runs, newest first (at most 10) */
            runs: components["schemas"]["ScheduleRun"][];
        };
        ScheduleRun: {
            /** @description When the scheduler enqueued it (ISO 8601, UTC) */
            firedAt: string;
            /** @description The slot it fired for (ISO 8601, UTC): earlier than firedAt when missed */
            slot: string;
            /** @enum {string} */
            status: "enqueued" | "running" | "completed" | "failed";
            /** @description The newest turn that ran it, when one was recorded */
            turnId?: string;
            /** @description Why its last attempt failed */
            error?: string;
        };
        ToolManifest: {
            agent: string;
            /**
             * @description How deferred tools are offered
             * @enum {string}
             */
            toolSearch: "native" | "client";
            tools: components["schemas"]["ToolManifestRow"][];
            /** @description MCP tools left out because their definition was refused */
            skipped: {
                server: string;
                tool: string;
                kind: string;
                reason: string;
            }[];
            /** @description Counts and sizes over tools */
            totals: {
                tools: number;
                strict: number;
                deferred: number;
                /** @description The sum of the tools’ schema bytes */
                bytes: number;
            };
            /** @description UTF-8 bytes of the request’s tools array */
            requestToolsBytes: number;
            /** @description Entries of the request’s tools array */
            requestToolsEntries: number;
        };
        ToolManifestRow: {
            /** @example computer */
            category: string;
            /**
             * @description Its dispatch key: name, or namespace.name
             * @example read_file
             */
            key: string;
            /** @description Sent with strict: true */
            strict: boolean;
            /** @description Why it is sent non-strict */
            fallbackReason?: string;
            /** @description Constraints moved into descriptions for strict mode (still enforced) */
            movedKeywords?: string[];
            /** @description Kept behind Tool Search */
            deferred: boolean;
            readOnly: boolean;
            destructive: boolean;
            /** @description UTF-8 bytes of its schema */
            bytes: number;
        };
    };
    responses: {
        /** @description No valid bearer token */
        Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description A cross-site browser request, or the read-only token on a write */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description A body that is not JSON */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description A Host that is not one of the daemon’s own */
        MisdirectedRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description A body or query that does not match the schema (`fields` names each problem) */
        InvalidRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description A body over the size limit */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description No such turn */
        TurnNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description No such approval */
        ApprovalNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description No such workflow */
        WorkflowNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Serving */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            403: components["responses"]["Forbidden"];
            421: components["responses"]["MisdirectedRequest"];
            /** @description Draining */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
        };
    };
    listTurns: {
        parameters: {
            query?: {
                /** @description An agent this daemon serves (default: its first) */
                agent?: string;
                status?: "running" | "waiting-approval" | "completed" | "incomplete" | "ended-by-tool" | "aborted" | "max-iterations" | "failed" | "interrupted";
                source?: "api" | "schedule" | "job" | "task";
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of turns */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TurnList"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            415: components["responses"]["UnsupportedMediaType"];
            421: components["responses"]["MisdirectedRequest"];
        };
    };
    startTurn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TurnRequest"];
            };
        };
        responses: {
            /** @description Recorded and started; `Location` names it */
            202: {
                headers: {
                    location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Turn"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            421: components["responses"]["MisdirectedRequest"];
            /** @description Draining, or the turn could not be recorded (nothing runs) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTurn: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The turn */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Turn"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["TurnNotFound"];
            415: components["responses"]["UnsupportedMediaType"];
            421: components["responses"]["MisdirectedRequest"];
        };
    };
    getTurnEvents: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event stream */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["TurnNotFound"];
            415: components["responses"]["UnsupportedMediaType"];
            421: components["responses"]["MisdirectedRequest"];
        };
    };
    cancelTurn: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cancellation asked for */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Turn"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["TurnNotFound"];
            /** @description The turn has already ended */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            421: components["responses"]["MisdirectedRequest"];
        };
    };
    listApprovals: {
        parameters: {
            query?: {
                /** @description An agent this daemon serves (default: its first) */
                agent?: string;
                status?: "pending" | "allowed" | "denied" | "expired" | "cancelled";
                turn?: string;
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of approvals */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalList"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            415: components["responses"]["UnsupportedMediaType"];
            421: components["responses"]["MisdirectedRequest"];
        };
    };
    getApproval: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The approval */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Approval"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["ApprovalNotFound"];
            415: components["responses"]["UnsupportedMediaType"];
            421: components["responses"]["MisdirectedRequest"];
        };
    };
    answerApproval: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApprovalAnswer"];
            };
        };
        responses: {
            /** @description Answered */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Approval"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["ApprovalNotFound"];
            /** @description Already answered, expired or cancelled */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            421: components["responses"]["MisdirectedRequest"];
        };
    };
    listWorkflows: {
        parameters: {
            query?: {
                /** @description An agent this daemon serves (default: its first) */
                agent?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Workflows */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkflowList"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            415: components["responses"]["UnsupportedMediaType"];
            421: components["responses"]["MisdirectedRequest"];
        };
    };
    startWorkflow: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WorkflowRequest"];
            };
        };
        responses: {
            /** @description Stored and started; `Location` names it */
            201: {
                headers: {
                    location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Workflow"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            421: components["responses"]["MisdirectedRequest"];
        };
    };
    getWorkflow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The workflow */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Workflow"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["WorkflowNotFound"];
            415: components["responses"]["UnsupportedMediaType"];
            421: components["responses"]["MisdirectedRequest"];
        };
    };
    cancelWorkflow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The workflow (unchanged when it had ended) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Workflow"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["WorkflowNotFound"];
            415: components["responses"]["UnsupportedMediaType"];
            421: components["responses"]["MisdirectedRequest"];
        };
    };
    getEvents: {
        parameters: {
            query?: {
                /** @description An agent this daemon serves (default: its first) */
                agent?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event stream */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            415: components["responses"]["UnsupportedMediaType"];
            421: components["responses"]["MisdirectedRequest"];
        };
    };
    getSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            415: components["responses"]["UnsupportedMediaType"];
            421: components["responses"]["MisdirectedRequest"];
        };
    };
    listSchedules: {
        parameters: {
            query?: {
                /** @description An agent this daemon serves (default: its first) */
                agent?: string;
                /** @description `true` adds cancelled and finished schedules (default: active ones) */
                all?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Schedules */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleList"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            415: components["responses"]["UnsupportedMediaType"];
            421: components["responses"]["MisdirectedRequest"];
        };
    };
    listTools: {
        parameters: {
            query?: {
                /** @description An agent this daemon serves (default: its first) */
                agent?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The manifest */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ToolManifest"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            415: components["responses"]["UnsupportedMediaType"];
            421: components["responses"]["MisdirectedRequest"];
            /** @description This daemon was started without tool manifests */
            501: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
