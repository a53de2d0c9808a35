import { Graph, layout } from '@dagrejs/dagre';
import { useId, useMemo } from 'preact/hooks';
import { statusTone } from './status';

/** One task as the graph draws it. */
export interface GraphTask {
  /** The task id, unique in its workflow. */
  id: string;
  /** Its status word, drawn as text under the id. */
  status: string;
  /** The ids of the tasks it waits for: one edge from each. */
  dependsOn: string[];
}

interface Placed {
  nodes: { id: string; x: number; y: number; width: number; height: number; label: string }[];
  edges: { from: string; to: string; path: string }[];
  width: number;
  height: number;
}

const CHAR = 7.5;
const NODE_HEIGHT = 46;
const MAX_LABEL = 28;

/** A label that fits a node: long ids are cut with an ellipsis (the full id is in the accessible name). */
function shortLabel(id: string): string {
  return id.length > MAX_LABEL ? `${id.slice(0, MAX_LABEL - 1)}…` : id;
}

/** Lays the tasks out with dagre, left to right: each task after the ones it depends on. */
function place(tasks: readonly { id: string; dependsOn: readonly string[] }[]): Placed {
  const graph = new Graph();
  graph.setGraph({ rankdir: 'LR', nodesep: 18, ranksep: 48, marginx: 8, marginy: 8 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const task of tasks) {
    const label = shortLabel(task.id);
    // Wide enough for the id or the longest status word ("cancelled"), whichever is longer.
    graph.setNode(task.id, { label, width: Math.max(label.length, 11) * CHAR + 24, height: NODE_HEIGHT });
  }
  for (const task of tasks) {
    for (const dependency of task.dependsOn) {
      if (graph.hasNode(dependency)) graph.setEdge(dependency, task.id);
    }
  }
  layout(graph);
  const nodes = graph.nodes().map((id) => {
    const node = graph.node(id);
    return { id, x: node.x, y: node.y, width: node.width, height: node.height, label: String(node.label) };
  });
  const edges = graph.edges().map((edge) => {
    const points: { x: number; y: number }[] = graph.edge(edge).points ?? [];
    const path = points.map((point, index) => `${index === 0 ? 'M' : 'L'}${point.x},${point.y}`).join(' ');
    return { from: edge.v, to: edge.w, path };
  });
  const label = graph.graph();
  return { nodes, edges, width: label.width ?? 0, height: label.height ?? 0 };
}

/**
 * A workflow's tasks as an SVG graph laid out by dagre: one node per task (its id and status as text,
 * the status's colour on the border), one arrow per dependency. Nodes are focusable buttons;
 * click, Enter or Space selects one.
 */
export function TaskGraph({
  name,
  tasks,
  selected,
  onSelect,
}: {
  /** The graph's accessible name. */
  name: string;
  tasks: readonly GraphTask[];
  selected: string | undefined;
  onSelect: (id: string) => void;
}) {
  // The layout depends on the structure only, not on statuses: polling redraws without re-layout.
  const structure = JSON.stringify(tasks.map((task) => [task.id, task.dependsOn]));
  const placed = useMemo(() => place(tasks), [structure]);
  const statusOf = new Map(tasks.map((task) => [task.id, task.status]));
  const marker = `arrow-${useId().replace(/[^A-Za-z0-9_-]/g, '')}`;
  return (
    <figure class="graph-figure" aria-label={name}>
      <svg
        role="presentation"
        class="task-graph"
        width={placed.width}
        height={placed.height}
        viewBox={`0 0 ${placed.width} ${placed.height}`}
      >
        <title>{name}</title>
        <defs>
          <marker
            id={marker}
            viewBox="0 0 10 10"
            refX="9"
            refY="5"
            markerWidth="7"
            markerHeight="7"
            orient="auto"
          >
            <path d="M0,0 L10,5 L0,10 z" class="edge-head" />
          </marker>
        </defs>
        {placed.edges.map((edge) => (
          <path key={`${edge.from}->${edge.to}`} class="edge" d={edge.path} marker-end={`url(#${marker})`} />
        ))}
        {placed.nodes.map((node) => {
          const status = statusOf.get(node.id) ?? 'pending';
          const isSelected = node.id === selected;
          return (
            // biome-ignore lint/a11y/useSemanticElements: an SVG node cannot be a <button>; it acts as one.
            <g
              key={node.id}
              class={`node tone-${statusTone(status)}${isSelected ? ' selected' : ''}`}
              transform={`translate(${node.x - node.width / 2},${node.y - node.height / 2})`}
              role="button"
              // Lower case: Preact sets SVG attributes as written, and SVG's attribute is `tabindex`.
              tabindex={0}
              aria-pressed={isSelected}
              aria-label={`Task ${node.id}: ${status}`}
              onClick={() => onSelect(node.id)}
              onKeyDown={(event) => {
                if (event.key === 'Enter' || event.key === ' ') {
                  event.preventDefault();
                  onSelect(node.id);
                }
              }}
            >
              <title>{`${node.id}: ${status}`}</title>
              <rect width={node.width} height={node.height} rx="6" />
              <text x={node.width / 2} y="19" class="node-id" text-anchor="middle">
                {node.label}
              </text>
              <text x={node.width / 2} y="36" class="node-status" text-anchor="middle">
                {status}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
