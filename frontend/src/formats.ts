/** A kind of file Loupe opens, as the welcome screen describes it. */
export interface DataFormat {
  readonly name: string;
  readonly extensions: readonly string[];
  readonly note: string;
}

/** The file formats Loupe loads, in the order the welcome screen lists them. */
export const DATA_FORMATS: readonly DataFormat[] = [
  { name: 'CSV / TSV', extensions: ['.csv', '.tsv'], note: 'Delimiters, headers and types detected' },
  { name: 'Parquet', extensions: ['.parquet'], note: 'Read in place, column by column' },
  { name: 'JSON', extensions: ['.json', '.ndjson'], note: 'Arrays of records or one per line' },
  { name: 'Excel', extensions: ['.xlsx'], note: 'Each sheet becomes a table' },
  { name: 'DuckDB', extensions: ['.duckdb'], note: 'Every table in the database' },
  { name: 'SQLite', extensions: ['.sqlite', '.db'], note: 'Every table in the database' },
];
