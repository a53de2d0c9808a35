/** One column of a list table: its heading, and whether it holds numbers (right-aligned). */
export interface Column {
  /** The heading. */
  label: string;
  /** Whether the column holds numbers. */
  number?: boolean;
}

/** The header row of a list table, one `<th scope="col">` a column. */
export function TableHead({ columns }: { columns: readonly Column[] }) {
  return (
    <thead>
      <tr>
        {columns.map(({ label, number }) => (
          <th key={label} scope="col" class={number === true ? 'number' : undefined}>
            {label}
          </th>
        ))}
      </tr>
    </thead>
  );
}
