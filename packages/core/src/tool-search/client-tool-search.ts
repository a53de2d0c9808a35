import { toolKey } from '../tool/agent-tool-map';
import type { AnyWorkerAgentTool } from '../tool/worker-agent-tool';

/** One ranked tool. */
export interface ToolSearchHit {
  /** The tool's dispatch key (`name` or `namespace.name`). */
  key: string;
  /** The tool. */
  tool: AnyWorkerAgentTool;
  /** BM25 score (higher is better, always > 0). */
  score: number;
}

/** A BM25 index over a set of tools. */
export interface ToolSearchIndex {
  /** Tools whose terms match `query`, best first, at most `limit`, skipping keys in `exclude`. */
  search(query: string, limit: number, exclude?: ReadonlySet<string>): ToolSearchHit[];
}

const K1 = 1.2;
const B = 0.75;

/** Splits text into lowercase terms, breaking snake_case, kebab-case and camelCase apart. */
export function tokenize(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((term) => term.length > 0);
}

interface Document {
  key: string;
  tool: AnyWorkerAgentTool;
  frequencies: Map<string, number>;
  length: number;
}

/**
 * Builds the client-side Tool Search index: BM25 (k1 1.2, b 0.75) over each tool's name (counted
 * twice, since a name match is the strongest signal), namespace, description and namespace
 * description.
 *
 * @example
 * const index = createToolSearchIndex(deferredTools);
 * index.search('create calendar event', 5); // [{ key: 'calendar.create_event', score: 3.1, ... }]
 */
export function createToolSearchIndex(tools: readonly AnyWorkerAgentTool[]): ToolSearchIndex {
  const documents: Document[] = tools.map((tool) => {
    const nameTerms = tokenize(tool.name);
    const terms = [
      ...nameTerms,
      ...nameTerms,
      ...tokenize(tool.namespace ?? ''),
      ...tokenize(tool.description),
      ...tokenize(tool.namespaceDescription ?? ''),
    ];
    const frequencies = new Map<string, number>();
    for (const term of terms) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
    return { key: toolKey(tool), tool, frequencies, length: terms.length };
  });
  const documentFrequency = new Map<string, number>();
  for (const document of documents) {
    for (const term of document.frequencies.keys()) {
      documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    }
  }
  const averageLength =
    documents.reduce((sum, document) => sum + document.length, 0) / (documents.length || 1);
  const count = documents.length;

  return {
    search(query, limit, exclude) {
      const queryTerms = [...new Set(tokenize(query))];
      const hits: ToolSearchHit[] = [];
      for (const document of documents) {
        if (exclude?.has(document.key)) continue;
        let score = 0;
        for (const term of queryTerms) {
          const frequency = document.frequencies.get(term);
          if (frequency === undefined) continue;
          const containing = documentFrequency.get(term) ?? 0;
          const idf = Math.log(1 + (count - containing + 0.5) / (containing + 0.5));
          score +=
            (idf * frequency * (K1 + 1)) / (frequency + K1 * (1 - B + (B * document.length) / averageLength));
        }
        if (score > 0) hits.push({ key: document.key, tool: document.tool, score });
      }
      hits.sort((left, right) => right.score - left.score);
      return hits.slice(0, Math.max(0, limit));
    },
  };
}
