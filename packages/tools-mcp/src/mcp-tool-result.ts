import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { AgentToolResult, ToolResultContentPart } from '@switchyard/core';
import { tooDeepPath } from '@switchyard/core/internal';
import { decodedBase64Length } from './decoded-base64-length';

/** What an MCP tool's result carries in `details` (for logs; never sent to the model). */
export interface McpToolCallDetails {
  /** The configured name of the server (the tool's namespace). */
  server: string;
  /** The tool's name on the server (may differ from the worker tool's name, see the README). */
  tool: string;
  /** The server's `structuredContent`, when it sent one nested at most `MAX_STRUCTURED_DEPTH` levels. */
  structuredContent?: unknown;
  /** Why the server's `structuredContent` is not here (`nested deeper than 64 levels`). */
  structuredContentOmitted?: string;
  /** What went wrong when the call did not reach a result: `tool-error` is the server's own `isError`. */
  failure?:
    | 'tool-error'
    | 'protocol-error'
    | 'timeout'
    | 'cancelled'
    | 'server-exited'
    | 'server-unavailable'
    | 'over-budget';
}

/**
 * The deepest a result's `structuredContent` may nest to be kept: it travels in the call's `details`,
 * which the worker serialises into its events and records, and 10,000 nested arrays overflowed the
 * stack there (the turn's end was never recorded).
 */
export const MAX_STRUCTURED_DEPTH = 64;

/** What `toAgentToolResult` enforces. */
export interface McpResultLimits {
  /** Most bytes beyond text (images as data URLs, each part's envelope) the model may receive. */
  maxResultBytes: number;
}

// Each part as the Responses request carries it, without its payload (and the comma between parts).
const TEXT_ENVELOPE_BYTES = JSON.stringify({ type: 'input_text', text: '' }).length + 1;
const IMAGE_ENVELOPE_BYTES =
  JSON.stringify({ type: 'input_image', image_url: 'data:;base64,', detail: 'auto' }).length + 1;

/**
 * The bytes a result's parts reach the model with beyond their text (which core cuts to its own
 * limit): each image as its data URL, and every part's envelope. Linear, no copy of the data.
 */
export function bytesBeyondText(parts: readonly ToolResultContentPart[]): number {
  let bytes = 0;
  for (const part of parts) {
    bytes +=
      part.type === 'text'
        ? TEXT_ENVELOPE_BYTES
        : IMAGE_ENVELOPE_BYTES + part.mimeType.length + part.data.length;
  }
  return bytes;
}

/** What `client.callTool` resolves to, loosely: current results have `content`, legacy ones `toolResult`. */
export interface McpCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  toolResult?: unknown;
}

function describeSize(base64: string): string {
  const bytes = decodedBase64Length(base64);
  return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
}

// The image types the Responses API takes as `input_image`. Anything else (SVG, BMP, TIFF, ...) is
// refused with a 400, and a stateless transcript would repeat that 400 on every later request.
const MODEL_IMAGE_TYPES: ReadonlyMap<string, string> = new Map([
  ['image/png', 'image/png'],
  ['image/jpeg', 'image/jpeg'],
  // Not a registered type, but servers send it for JPEG bytes.
  ['image/jpg', 'image/jpeg'],
  ['image/gif', 'image/gif'],
  ['image/webp', 'image/webp'],
]);

/** The type to send the model, or undefined when the model does not take this kind of image. */
function modelImageType(mimeType: string): string | undefined {
  const semicolon = mimeType.indexOf(';');
  const essence = (semicolon === -1 ? mimeType : mimeType.slice(0, semicolon)).trim().toLowerCase();
  return MODEL_IMAGE_TYPES.get(essence);
}

const IMAGE_TYPES_NOTE = 'the model takes PNG, JPEG, GIF and WebP images only';

function imagePart(data: string, mimeType: string, label: string): ToolResultContentPart {
  // An empty `input_image` is refused by the API (400), and a stateless transcript would send it,
  // and be refused, on every later request of the turn.
  if (decodedBase64Length(data) === 0)
    return { type: 'text', text: `[${label} (${mimeType}) omitted: it was empty]` };
  const type = modelImageType(mimeType);
  if (type !== undefined) return { type: 'image', data, mimeType: type };
  return {
    type: 'text',
    text: `[${label} (${mimeType}, ${describeSize(data)}) omitted: ${IMAGE_TYPES_NOTE}]`,
  };
}

function contentPart(block: ContentBlock): ToolResultContentPart {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return imagePart(block.data, block.mimeType, 'image');
    case 'audio':
      return { type: 'text', text: `[audio (${block.mimeType}, ${describeSize(block.data)}) omitted]` };
    case 'resource': {
      const { resource } = block;
      if ('text' in resource) {
        return { type: 'text', text: `Resource ${resource.uri}:\n${resource.text}` };
      }
      if (resource.mimeType?.toLowerCase().startsWith('image/')) {
        return imagePart(resource.blob, resource.mimeType, `image resource ${resource.uri}`);
      }
      return {
        type: 'text',
        text: `[binary resource ${resource.uri} (${resource.mimeType ?? 'unknown type'}, ${describeSize(resource.blob)}) omitted]`,
      };
    }
    case 'resource_link':
      return {
        type: 'text',
        text: `Resource link: ${block.name} <${block.uri}>${block.mimeType === undefined ? '' : ` (${block.mimeType})`}${block.description === undefined ? '' : `: ${block.description}`}`,
      };
    default:
      return { type: 'text', text: `[unsupported MCP content: ${JSON.stringify(block)}]` };
  }
}

/**
 * Maps an MCP `CallToolResult` to an `AgentToolResult`: text and PNG, JPEG, GIF and WebP images pass
 * through, an embedded text resource becomes text headed by its URI, such an image blob becomes an
 * image; an empty image (no data) becomes a placeholder saying so, and images of other types (SVG,
 * BMP, ...), other binary content and audio become a short
 * placeholder naming the type and the exact decoded size; a resource link becomes a line naming it. A result with no
 * content but `structuredContent` shows that as JSON. `isError` carries over. A `structuredContent`
 * nested deeper than `MAX_STRUCTURED_DEPTH` levels is left out (`details.structuredContentOmitted`
 * says why; with no content the model reads that too).
 *
 * Contract: a result whose parts would reach the model with more than `limits.maxResultBytes` beyond
 * their text (`bytesBeyondText`) becomes an `isError` result naming the server and the limit, with
 * `failure: 'over-budget'`; its text is left to core's cap.
 */
export function toAgentToolResult(
  result: McpCallResult,
  details: McpToolCallDetails,
  limits: McpResultLimits,
): AgentToolResult<McpToolCallDetails> {
  const isError = result.isError === true;
  const tooDeep =
    result.structuredContent !== undefined &&
    tooDeepPath(result.structuredContent, 'structuredContent', MAX_STRUCTURED_DEPTH) !== undefined;
  const omitted = `nested deeper than ${MAX_STRUCTURED_DEPTH} levels`;
  const fullDetails: McpToolCallDetails = {
    ...details,
    ...(result.structuredContent === undefined
      ? {}
      : tooDeep
        ? { structuredContentOmitted: omitted }
        : { structuredContent: result.structuredContent }),
    ...(isError ? { failure: 'tool-error' as const } : {}),
  };
  let content: string | ToolResultContentPart[];
  if (Array.isArray(result.content) && result.content.length > 0) {
    const parts = (result.content as ContentBlock[]).map(contentPart);
    const beyondText = bytesBeyondText(parts);
    if (beyondText > limits.maxResultBytes) {
      const images = parts.filter((part) => part.type === 'image').length;
      return {
        isError: true,
        content: `The result of ${details.server}.${details.tool} would reach the model with ${beyondText} bytes beyond its text (${images} ${images === 1 ? 'image' : 'images'} and ${parts.length} content parts), over MCP server '${details.server}''s maxResultBytes of ${limits.maxResultBytes}; it was not passed on. Ask the tool for less (fewer or smaller images, fewer parts) if it allows.`,
        details: { ...fullDetails, failure: 'over-budget' },
      };
    }
    content = parts;
  } else if (result.structuredContent !== undefined) {
    content = tooDeep
      ? `The tool's structuredContent is ${omitted}; it was not passed on.`
      : JSON.stringify(result.structuredContent);
  } else if (result.toolResult !== undefined) {
    content = typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult);
  } else {
    content = isError ? 'The tool failed without saying why.' : 'The tool returned no content.';
  }
  return { content, details: fullDetails, ...(isError ? { isError: true } : {}) };
}
