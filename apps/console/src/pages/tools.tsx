import { useState } from 'preact/hooks';
import './tools.css';
import { api, type Schema, unwrap } from '../api/client';
import { useSession } from '../session';
import { AgentFilter } from '../ui/agent-filter';
import { ErrorAlert } from '../ui/error-alert';
import { formatCount } from '../ui/format';
import { Loading } from '../ui/loading';
import { type Column, TableHead } from '../ui/table-head';
import { useResource } from '../ui/use-resource';

type Manifest = Schema<'ToolManifest'>;
type ManifestTool = Manifest['tools'][number];

const COLUMNS: Column[] = [
  { label: 'Key' },
  { label: 'Category' },
  { label: 'Strict' },
  { label: 'Deferred' },
  { label: 'Access' },
  { label: 'Bytes', number: true },
];

function access(tool: ManifestTool): string {
  if (tool.destructive) return 'destructive';
  return tool.readOnly ? 'read-only' : 'writes';
}

function strictness(tool: ManifestTool): string {
  if (!tool.strict) return `no: ${tool.fallbackReason ?? 'no reason given'}`;
  const moved = tool.movedKeywords ?? [];
  return moved.length === 0 ? 'yes' : `yes (moved: ${moved.join(', ')})`;
}

/** `#/tools`: the manifest an agent's next text turn would send, tool by tool, with the totals. */
export function ToolsPage() {
  const session = useSession();
  const [agent, setAgent] = useState(session.defaultAgent);
  const { value: manifest, error } = useResource(
    (signal) => unwrap(api.GET('/v1/tools', { params: { query: { agent } }, signal })),
    [agent],
  );

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Tools</h1>
      <div class="filters">
        <AgentFilter value={agent} onChange={setAgent} />
      </div>
      <ErrorAlert error={error} />
      {manifest === undefined ? (
        <Loading error={error} />
      ) : (
        <table class="list tools">
          <caption>The tools agent {manifest.agent}'s next text turn would send</caption>
          <TableHead columns={COLUMNS} />
          <tbody>
            {manifest.tools.map((tool) => (
              <tr key={tool.key}>
                <th scope="row">
                  <code>{tool.key}</code>
                </th>
                <td>{tool.category}</td>
                <td class={tool.strict ? '' : 'not-strict'}>{strictness(tool)}</td>
                <td>{tool.deferred ? 'yes' : 'no'}</td>
                <td class={`access-${access(tool)}`}>{access(tool)}</td>
                <td class="number">{formatCount(tool.bytes)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Totals</th>
              <td>{manifest.totals.tools} tools</td>
              <td>{manifest.totals.strict} strict</td>
              <td>{manifest.totals.deferred} deferred</td>
              <td />
              <td class="number">{formatCount(manifest.totals.bytes)}</td>
            </tr>
          </tfoot>
        </table>
      )}
      {manifest === undefined ? null : (
        <>
          <p>
            The request's tools array: {manifest.requestToolsEntries} entries,{' '}
            {formatCount(manifest.requestToolsBytes)} bytes; deferred tools are offered through{' '}
            {manifest.toolSearch === 'native' ? "the model's own tool search" : 'a client-side tool search'}.
          </p>
          {manifest.skipped.length === 0 ? null : (
            <>
              <h2>Left out</h2>
              <ul>
                {manifest.skipped.map((skip) => (
                  <li key={`${skip.server}/${skip.tool}`}>
                    <code>
                      {skip.server}.{skip.tool}
                    </code>{' '}
                    ({skip.kind}): {skip.reason}
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </section>
  );
}
